package io.aryl.yarn.round;

import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Which of the nodes a round plans on inference owns (a node inference owns and training plans on
 * is on loan), by position: asked of every node only when the nodes or the owners changed. At
 * thousands of nodes a lookup of each one's name every round was a tenth of the translation.
 *
 * <p>Not thread-safe: one translator, one round at a time.
 */
final class InferenceOwnership {
  private final Predicate<String> inferenceOwned;
  private final LongSupplier ownersChanges;

  /** Whether each of {@link #answeredFor}'s nodes is inference's, as of {@link #answeredAsOf}. */
  private boolean[] owned;

  private PlannableNodes answeredFor;
  private long answeredAsOf;

  /**
   * @param inferenceOwned whether a node, by id, is inference's
   * @param ownersChanges a count that moves whenever an answer of {@code inferenceOwned} may have
   *     changed: the answers for every node are kept until it does (asked every round if null)
   */
  InferenceOwnership(Predicate<String> inferenceOwned, LongSupplier ownersChanges) {
    this.inferenceOwned = inferenceOwned;
    this.ownersChanges = ownersChanges;
  }

  /** Whether each node of {@code nodes} is inference's, by position; not to be changed. */
  boolean[] owned(PlannableNodes nodes) {
    long asOf =
        ownersChanges == null
            ? 0
            : ownersChanges.getAsLong(); // before the answers: a change after is seen next
    if (ownersChanges == null || nodes != answeredFor || asOf != answeredAsOf) {
      boolean[] answers = new boolean[nodes.size()];
      for (int i = 0; i < answers.length; i++) {
        answers[i] = inferenceOwned.test(nodes.id(i));
      }
      owned = answers;
      answeredFor = nodes;
      answeredAsOf = asOf;
    }
    return owned;
  }
}
