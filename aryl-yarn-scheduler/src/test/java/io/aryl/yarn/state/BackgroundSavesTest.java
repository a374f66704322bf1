package io.aryl.yarn.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("BackgroundSaves: sections saved off the caller's thread, the latest value of each")
class BackgroundSavesTest {
  /** A store whose writes of the jobs section wait for the test, and which may refuse them. */
  private static final class GatedStore implements StateStore {
    final MemoryStateStore inner = new MemoryStateStore();
    final List<String> written = new ArrayList<>();
    final CountDownLatch open = new CountDownLatch(1);
    final CountDownLatch entered = new CountDownLatch(1); // a JOBS write reached the store
    volatile IOException refuse;

    @Override
    public long claim() {
      return inner.claim();
    }

    @Override
    public Map<String, byte[]> readAll() {
      return inner.readAll();
    }

    @Override
    public void write(String section, byte[] data) throws IOException {
      if (section.equals(Section.JOBS.name())) {
        entered.countDown();
        try {
          open.await();
        } catch (InterruptedException e) {
          throw new IOException(e);
        }
        if (refuse != null) {
          throw refuse;
        }
        synchronized (written) {
          written.add(new String(data, java.nio.charset.StandardCharsets.UTF_8));
        }
      }
      inner.write(section, data);
    }

    @Override
    public String kind() {
      return "gated";
    }

    @Override
    public String location() {
      return "a test";
    }

    @Override
    public String location(String section) {
      return section;
    }

    @Override
    public String deleteCommand(String section) {
      return "-";
    }

    @Override
    public void close() {}
  }

  private static Jobs jobs(double attainedS) {
    return new Jobs(Map.of("app_1", new JobRecord(attainedS, 0, Map.of("n1", 1), 0)));
  }

  @Test
  @DisplayName(
      "the caller does not wait for the store; values handed over meanwhile are saved as the newest only")
  void latestOnly() throws Exception {
    GatedStore store = new GatedStore();
    DurableState state = DurableState.open(store, 0);
    try (BackgroundSaves saves = new BackgroundSaves(state, "test-writer")) {
      saves.save(Section.JOBS, jobs(1)); // taken by the writer, then held by the store
      assertThat(store.entered.await(10, TimeUnit.SECONDS)).as("the writer holds 1").isTrue();
      saves.save(Section.JOBS, jobs(2)); // waiting behind it
      assertThat(saves.waiting(Section.JOBS)).isTrue();
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      Thread saver =
          new Thread(
              () -> {
                try {
                  saves.saveNow(Section.JOBS, jobs(3));
                } catch (Throwable t) {
                  thrown.set(t);
                }
              });
      saver.start();
      // saveNow takes 2 out of the queue before it waits for its own write: only then does the
      // store let the first write finish.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (saves.waiting(Section.JOBS) && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(saves.waiting(Section.JOBS)).as("2 taken out by saveNow").isFalse();
      store.open.countDown();
      saver.join();
      assertThat(thrown.get()).isNull();
      saves.flush();

      assertThat(store.written).as("2, older and still waiting, is not written").hasSize(2);
      assertThat(store.written.get(0)).contains("1.0");
      assertThat(store.written.get(1)).contains("3.0");
      assertThat(state.get(Section.JOBS)).isEqualTo(jobs(3));

      store.refuse = new StoreFencedException("another scheduler claimed the store");
      assertThatThrownBy(() -> saves.saveNow(Section.JOBS, jobs(4)))
          .isInstanceOf(StoreFencedException.class);
      assertThat(saves.failure()).as("thrown, not kept for later").isNull();
    }
  }

  @Test
  @DisplayName("a failed save is handed to the caller once, a fenced one as such")
  void failures() throws Exception {
    GatedStore store = new GatedStore();
    DurableState state = DurableState.open(store, 0);
    store.open.countDown();
    store.refuse = new StoreFencedException("another scheduler claimed the store");
    try (BackgroundSaves saves = new BackgroundSaves(state, "test-writer")) {
      saves.save(Section.JOBS, jobs(1));
      saves.flush();

      assertThat(saves.failure()).isInstanceOf(StoreFencedException.class);
      assertThat(saves.failure()).isNull();
      assertThat(state.get(Section.JOBS).jobs()).isEmpty();
    }
  }

  @Test
  @DisplayName("closing saves what was handed over before, and nothing handed over after")
  void close() throws Exception {
    GatedStore store = new GatedStore();
    DurableState state = DurableState.open(store, 0);
    store.open.countDown();
    BackgroundSaves saves = new BackgroundSaves(state, "test-writer");
    saves.save(Section.JOBS, jobs(1));
    saves.close();
    saves.save(Section.JOBS, jobs(2));

    assertThat(state.get(Section.JOBS)).isEqualTo(jobs(1));
  }
}
