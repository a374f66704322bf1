package io.aryl.yarn.rm;

import io.aryl.yarn.conf.ArylConf;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.state.CorruptStateException;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.StateStore;
import io.aryl.yarn.state.StateStores;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;

/**
 * Aryl's state store in this ResourceManager: opened when it becomes active, claimed (fencing any
 * earlier active scheduler) and read back into the {@link DurableState} the rounds resume from, and
 * closed when the scheduler stops. A state that cannot be read stops the start with a message
 * naming the store and what to do; the store, opened, is still closed at the stop.
 */
final class ArylStore implements AutoCloseable {
  private final StateStore store;

  /** Null until {@link #claim} read it. */
  private volatile DurableState state;

  private ArylStore(StateStore store) {
    this.store = store;
  }

  /** The store {@code aryl.scheduler.state-store} names, opened and not claimed yet. */
  static ArylStore open(ArylSettings settings, Configuration conf, ResourceManager rm)
      throws IOException {
    return new ArylStore(StateStores.open(settings, conf, rm));
  }

  /**
   * Claims the store and reads what it holds.
   *
   * @throws YarnRuntimeException when it cannot be read: naming the section to inspect or reset
   *     when one is corrupt, else the store and the key that chose it
   */
  DurableState claim() {
    try {
      state = DurableState.open(store, System.currentTimeMillis());
    } catch (CorruptStateException e) {
      throw new YarnRuntimeException(e.getMessage(), e);
    } catch (IOException e) {
      throw new YarnRuntimeException(
          "Aryl could not read its state at "
              + store.kind()
              + " "
              + store.location()
              + ": "
              + e.getMessage()
              + " ("
              + ArylConf.STATE_STORE.key()
              + ")",
          e);
    }
    return state;
  }

  StateStore store() {
    return store;
  }

  /** The state read by {@link #claim}; null before, or if it could not be read. */
  DurableState state() {
    return state;
  }

  @Override
  public void close() {
    store.close();
  }
}
