package io.aryl.yarn.state;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Saves sections of a {@link DurableState} on a thread of its own, the latest value of each: for
 * sections that no action waits on, such as measurements. A save to a file system waits for the
 * disk (an fsync, tens of milliseconds on a busy machine, hundreds at times); made in the planning
 * round, it was a good part of the round's slowest times.
 *
 * <p>Values handed over before a save started are replaced by newer ones, never written after them.
 * A failed save is kept for the caller to collect ({@link #failure}); a {@link
 * StoreFencedException} among them means another scheduler is active.
 */
public final class BackgroundSaves implements AutoCloseable {
  private final DurableState state;
  private final Map<Section<?>, Object> pending = new ConcurrentHashMap<>();
  private final AtomicReference<IOException> failure = new AtomicReference<>();
  private final ExecutorService thread;

  public BackgroundSaves(DurableState state, String threadName) {
    this.state = state;
    this.thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
  }

  /** Saves {@code value} soon, unless a newer value of the section is handed over before then. */
  public <T> void save(Section<T> section, T value) {
    if (pending.put(section, value) == null) {
      try {
        thread.execute(() -> write(section));
      } catch (RejectedExecutionException e) {
        pending.remove(section); // closed: the scheduler is stopping
      }
    }
  }

  /** Whether a value of {@code section} waits for the writer (read by the tests' sequencing). */
  boolean waiting(Section<?> section) {
    return pending.containsKey(section);
  }

  /**
   * Saves {@code value} now, on the writer's thread, and waits for it: for a value an action waits
   * on, in a section otherwise saved in the background. Written on the same thread, after a save
   * already under way, and in place of an older value still waiting: an older value is never
   * written over it.
   *
   * @throws StoreFencedException when another scheduler became active since
   * @throws IOException when the save failed, or the writer is closed (the scheduler is stopping)
   */
  public <T> void saveNow(Section<T> section, T value) throws IOException {
    pending.remove(section); // older than this value: not written at all
    Future<?> saved;
    try {
      saved =
          thread.submit(
              () -> {
                state.save(section, value);
                return null;
              });
    } catch (RejectedExecutionException e) {
      throw new IOException(
          "the " + section.name() + " section was not saved: its writer is closed");
    }
    try {
      saved.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(
          "interrupted while saving the " + section.name() + " section");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(String.valueOf(e.getCause()), e.getCause());
    }
  }

  @SuppressWarnings("unchecked")
  private <T> void write(Section<T> section) {
    T value = (T) pending.remove(section);
    if (value == null) {
      return;
    }
    try {
      state.save(section, value);
    } catch (IOException e) {
      failure.set(e);
    } catch (RuntimeException e) {
      failure.set(new IOException(e.toString(), e));
    }
  }

  /** The last save that failed since the last call, or null. */
  public IOException failure() {
    return failure.getAndSet(null);
  }

  /**
   * Waits until what was handed over so far is saved (or failed); for a test, or before the store
   * is closed.
   */
  public void flush() throws InterruptedException {
    try {
      thread.submit(() -> {}).get();
    } catch (RejectedExecutionException e) {
      // closed: nothing more is written
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * Saves what was handed over, waiting at most {@code timeoutMs}; nothing handed over later is
   * saved.
   */
  public void close(long timeoutMs) throws InterruptedException {
    thread.shutdown();
    thread.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Saves what was handed over, waiting at most 5 s. Interrupted meanwhile, it waits no longer and
   * keeps the interrupt for the caller: a stop that was asked to hurry is not held up by the disk.
   */
  @Override
  public void close() {
    try {
      close(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
