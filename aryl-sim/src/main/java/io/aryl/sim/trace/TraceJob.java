package io.aryl.sim.trace;

/**
 * One training job of a public trace, as the trace gives it: no elasticity, no throughput model.
 *
 * @param id the trace's job id (for traces without ids, one made up from the line number)
 * @param submitS submission time, seconds from the start of the trace, {@code >= 0}
 * @param durationS run time in the trace, seconds, {@code > 0}
 * @param gpus GPUs the job asked for, {@code > 0}
 * @param model the model name the trace gives, {@code ""} when it gives none
 * @param tenant the team the trace says submitted it (Philly: its virtual cluster), {@code ""} when
 *     it says none
 */
public record TraceJob(
    String id, double submitS, double durationS, int gpus, String model, String tenant) {

  /** A job of no particular team. */
  public TraceJob(String id, double submitS, double durationS, int gpus, String model) {
    this(id, submitS, durationS, gpus, model, "");
  }

  public TraceJob {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException(
          "trace job id must not be blank, was " + (id == null ? "null" : "'" + id + "'"));
    }
    if (!(submitS >= 0) || Double.isInfinite(submitS)) {
      throw new IllegalArgumentException(
          "trace job(" + id + ").submitS must be a finite number >= 0, was " + submitS);
    }
    if (!(durationS > 0) || Double.isInfinite(durationS)) {
      throw new IllegalArgumentException(
          "trace job(" + id + ").durationS must be a finite number > 0, was " + durationS);
    }
    if (gpus <= 0) {
      throw new IllegalArgumentException("trace job(" + id + ").gpus must be > 0, was " + gpus);
    }
    if (model == null) {
      throw new IllegalArgumentException(
          "trace job(" + id + ").model must not be null (use \"\" when unknown)");
    }
    if (tenant == null) {
      throw new IllegalArgumentException(
          "trace job(" + id + ").tenant must not be null (use \"\" for none)");
    }
  }

  /** GPU-seconds the job used in the trace: {@code gpus * durationS}. */
  public double gpuSeconds() {
    return gpus * durationS;
  }
}
