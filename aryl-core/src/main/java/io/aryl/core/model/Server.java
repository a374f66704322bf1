package io.aryl.core.model;

/**
 * A GPU server.
 *
 * @param id unique name (a YARN node id, a simulator index)
 * @param gpuType the type of all of its GPUs
 * @param gpus how many GPUs it has
 * @param pool the fleet that owns it; a loaned server still belongs to {@link Pool#INFERENCE}
 * @param loaned true while an inference server is lent to training
 * @param fenced true while the server is being returned: it keeps what runs on it, but takes no new
 *     workers
 */
public record Server(
    String id, GpuType gpuType, int gpus, Pool pool, boolean loaned, boolean fenced) {
  public Server {
    Checks.notBlank("server.id", id);
    Checks.notNull("server", id, "gpuType", gpuType);
    Checks.positive("server", id, "gpus", gpus);
    Checks.notNull("server", id, "pool", pool);
    if (loaned && pool != Pool.INFERENCE) {
      throw new IllegalArgumentException(
          "server("
              + id
              + ").loaned must be false for a server of pool "
              + pool
              + ": only inference servers are lent");
    }
  }

  public static Server training(String id, GpuType type, int gpus) {
    return new Server(id, type, gpus, Pool.TRAINING, false, false);
  }

  public static Server inference(String id, GpuType type, int gpus) {
    return new Server(id, type, gpus, Pool.INFERENCE, false, false);
  }

  /** An inference server currently lent to training. */
  public static Server loaned(String id, GpuType type, int gpus) {
    return new Server(id, type, gpus, Pool.INFERENCE, true, false);
  }

  /** True if training workers may run here: a training server, or a loaned inference server. */
  public boolean servesTraining() {
    return pool == Pool.TRAINING || loaned;
  }

  /** True if new training workers may be placed here. */
  public boolean acceptsNewWorkers() {
    return servesTraining() && !fenced;
  }

  public Server withLoaned(boolean newLoaned) {
    // An inference server that comes back is no longer fenced: the fence only guards its return.
    return new Server(
        id, gpuType, gpus, pool, newLoaned, (pool == Pool.TRAINING || newLoaned) ? fenced : false);
  }

  public Server withFenced(boolean newFenced) {
    return new Server(id, gpuType, gpus, pool, loaned, newFenced);
  }
}
