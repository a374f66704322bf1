package io.aryl.sls;

/**
 * How an elastic Aryl job is written in an SLS JSON trace, in SLS's own vocabulary: written by
 * {@link io.aryl.sls.trace.SlsTraceWriter}, read by {@link ArylAmSimulator}.
 *
 * <p>A job is {@code "am.type": "aryl"} with one or two entries in {@code job.tasks}: {@value
 * #BASE} containers, {@code count} = the job's minimum workers, and, for an elastic job, {@value
 * #FLEXIBLE} containers, {@code count} = maximum minus minimum. Every container of a job has the
 * same resources ({@code container.yarn.io/gpu} GPUs per worker). {@code container.duration.ms} of
 * the base entry is the job's runtime on its minimum workers; with more workers it runs
 * proportionally faster (up to its maximum).
 */
public final class SlsJobFormat {
  /** The key of a job's AM type, as SLS's documentation and sample traces write it. */
  public static final String AM_TYPE_KEY = "am.type";

  /**
   * The AM type of an elastic Aryl job; SLS maps it to {@link ArylAmSimulator} by {@code
   * yarn.sls.am.type.aryl}.
   */
  public static final String AM_TYPE = "aryl";

  /** {@code container.type} of the base workers: the gang that must start together. */
  public static final String BASE = "aryl-base";

  /**
   * {@code container.type} of the flexible workers: extras the job may be given and asked to give
   * back.
   */
  public static final String FLEXIBLE = "aryl-flexible";

  /**
   * The resource name of GPUs in the node file and, prefixed with {@code container.}, in a task.
   */
  public static final String GPU = "yarn.io/gpu";

  private SlsJobFormat() {}
}
