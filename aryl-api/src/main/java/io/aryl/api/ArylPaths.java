package io.aryl.api;

/**
 * Every path Aryl adds to the ResourceManager's web app, once. The scheduler's JAX-RS resource is
 * rooted at {@link #ROOT} and names its methods by the relative paths ({@code STATUS_PATH}, ...);
 * clients call the absolute ones ({@link #STATUS}, ...). Both are compile-time constants, so
 * annotations can use them.
 */
public final class ArylPaths {
  /**
   * The ResourceManager's REST root, under which the stock {@code /ws/v1/cluster/*} endpoints live.
   */
  public static final String ROOT = "/ws/v1/cluster";

  /**
   * {@code GET}: the status ({@link io.aryl.api.status.SchedulerStatus}), relative to {@link
   * #ROOT}.
   */
  public static final String STATUS_PATH = "/aryl";

  /** {@code GET}: the operators' page (HTML), relative to {@link #ROOT}. */
  public static final String PAGE_PATH = STATUS_PATH + "/page";

  /**
   * {@code GET}: the charts' samples ({@link io.aryl.api.status.History}), relative to {@link
   * #ROOT}.
   */
  public static final String HISTORY_PATH = STATUS_PATH + "/history";

  /**
   * {@code POST}: a reclaim ({@link io.aryl.api.reclaim.ReclaimRequest}, answered with a {@link
   * io.aryl.api.status.ReclaimStatus}), relative to {@link #ROOT}.
   */
  public static final String RECLAIMS_PATH = STATUS_PATH + "/reclaims";

  /**
   * {@code PUT}: the loan controller's target ({@link io.aryl.api.loan.LoanTarget}, answered with a
   * {@link io.aryl.api.loan.LoanTargetAccepted}), relative to {@link #ROOT}.
   */
  public static final String LOAN_TARGET_PATH = STATUS_PATH + "/loan-target";

  /**
   * {@code POST}: nodes lent by hand ({@link io.aryl.api.loan.LendRequest}, answered with a {@link
   * io.aryl.api.loan.LendAnswer}), relative to {@link #ROOT}.
   */
  public static final String LOANS_PATH = STATUS_PATH + "/loans";

  /** {@code GET /ws/v1/cluster/aryl}. */
  public static final String STATUS = ROOT + STATUS_PATH;

  /** {@code GET /ws/v1/cluster/aryl/page}. */
  public static final String PAGE = ROOT + PAGE_PATH;

  /** {@code GET /ws/v1/cluster/aryl/history}. */
  public static final String HISTORY = ROOT + HISTORY_PATH;

  /** {@code POST /ws/v1/cluster/aryl/reclaims}. */
  public static final String RECLAIMS = ROOT + RECLAIMS_PATH;

  /** {@code PUT /ws/v1/cluster/aryl/loan-target}. */
  public static final String LOAN_TARGET = ROOT + LOAN_TARGET_PATH;

  /** {@code POST /ws/v1/cluster/aryl/loans}. */
  public static final String LOANS = ROOT + LOANS_PATH;

  private ArylPaths() {}
}
