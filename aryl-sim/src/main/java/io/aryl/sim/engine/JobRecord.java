package io.aryl.sim.engine;

/**
 * One finished job of a simulation run.
 *
 * @param id the trace's job id
 * @param submitS submission time, seconds from the start of the simulated window
 * @param firstStartS when it first ran
 * @param endS when it finished
 * @param requestedGpus GPUs the trace says it asked for
 * @param elastic whether the run treated it as elastic
 * @param boundS the job's completion time with no queuing, at full width on reference-speed GPUs:
 *     no policy can finish it sooner
 */
public record JobRecord(
    String id,
    double submitS,
    double firstStartS,
    double endS,
    int requestedGpus,
    boolean elastic,
    double boundS) {

  public double queueS() {
    return firstStartS - submitS;
  }

  public double jctS() {
    return endS - submitS;
  }
}
