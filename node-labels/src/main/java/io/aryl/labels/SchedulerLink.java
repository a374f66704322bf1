package io.aryl.labels;

import io.aryl.api.loan.LoanTarget;
import io.aryl.api.loan.LoanTargetAccepted;
import io.aryl.api.loan.StaleTarget;
import io.aryl.api.status.LoanTargetStatus;
import io.aryl.core.model.Checks;
import java.io.IOException;

/**
 * What the loan controller needs from the scheduler, the one writer of which inference node is
 * where: how many inference nodes there are and how many are on loan, whether it is recovering, the
 * target in force; and taking a new target. {@link SchedulerResource} is the real one, over the
 * active ResourceManager's REST resource.
 */
public interface SchedulerLink {
  /** The scheduler's status as the controller reads it. */
  SchedulerView view() throws IOException;

  /**
   * Sends a target; the scheduler stores it before it answers.
   *
   * @return the scheduler's answer: the target as stored, its inference nodes, whether it recovers
   * @throws StaleTargetException (409) a target of a newer epoch is in force: this instance was
   *     deposed
   * @throws TargetRefusedException (400, 503) the scheduler did not take it, with its reason
   * @throws IOException no answer, or another one
   */
  LoanTargetAccepted send(LoanTarget target)
      throws IOException, TargetRefusedException, StaleTargetException;

  /**
   * Where the scheduler was last reached (the active ResourceManager's web app), for the status; ""
   * if unknown.
   */
  default String address() {
    return "";
  }

  /**
   * What the scheduler shows now.
   *
   * @param recovering a newly active scheduler still waits for its nodes to re-register: its counts
   *     may miss some
   * @param inferenceNodes registered inference nodes, wherever they are (home, being lent, lent,
   *     returning)
   * @param onLoan those lent or being lent, but for those a reclaim returns already
   * @param target the loan target in force, whoever set it; null before one was set
   * @param returning inference nodes a reclaim is bringing home (drained, relabelled) now
   * @param reclaimFinishedMs when the scheduler's latest reclaim ended, epoch ms; -1 when none did
   */
  record SchedulerView(
      boolean recovering,
      int inferenceNodes,
      int onLoan,
      LoanTargetStatus target,
      int returning,
      long reclaimFinishedMs) {
    public SchedulerView {
      Checks.nonNegative("inferenceNodes", inferenceNodes);
      Checks.nonNegative("onLoan", onLoan);
      Checks.nonNegative("returning", returning);
      if (onLoan > inferenceNodes) {
        throw new IllegalArgumentException(
            "onLoan must be <= inferenceNodes, was onLoan="
                + onLoan
                + ", inferenceNodes="
                + inferenceNodes);
      }
    }

    /** A scheduler with no reclaim under way or ended. */
    public SchedulerView(
        boolean recovering, int inferenceNodes, int onLoan, LoanTargetStatus target) {
      this(recovering, inferenceNodes, onLoan, target, 0, -1);
    }
  }

  /** The scheduler answered 409: a target of a newer epoch is in force. */
  final class StaleTargetException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient StaleTarget answer;

    public StaleTargetException(StaleTarget answer) {
      super(answer.error());
      this.answer = answer;
    }

    /** The 409's body: the refused epoch and the one in force. */
    public StaleTarget answer() {
      return answer;
    }
  }

  /**
   * The scheduler did not take a target: 400 (a value it refuses) or 503 (not now), with its
   * reason.
   */
  final class TargetRefusedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    public TargetRefusedException(int status, String reason) {
      super(reason);
      this.status = status;
    }

    /** The HTTP status of the refusal. */
    public int status() {
      return status;
    }
  }
}
