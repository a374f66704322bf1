package io.aryl.yarn.state;

import java.util.List;
import java.util.Map;

/**
 * One part of Aryl's durable state, stored on its own (a znode or a file): its name, its value
 * type, its value when nothing is stored yet, and what resetting it forgets.
 */
public final class Section<T> {
  /**
   * The state's format version and the origin of the planning clock. Written once, by the first
   * active scheduler.
   */
  public static final Section<Meta> META =
      new Section<>(
          "meta",
          Meta.class,
          null,
          "the planning clock restarts (queued jobs' waits are measured afresh)");

  /**
   * The inference pool's nodes and where each one is (home, being lent, lent). Written by the
   * engine's {@code InferencePool} before a node is relabelled, and when it first sees a node in
   * the inference pool.
   */
  public static final Section<InferenceNodes> POOLS =
      new Section<>(
          "pools",
          InferenceNodes.class,
          InferenceNodes.NONE,
          "nodes on loan then count as training's own until they are labelled inference again");

  /**
   * Reclaims in flight, the last ones done, and the next reclaim id. Written by the engine's {@code
   * ReclaimSteps}.
   */
  public static final Section<Reclaims> RECLAIMS =
      new Section<>(
          "reclaims",
          Reclaims.class,
          new Reclaims(1, List.of(), List.of()),
          "reclaims in flight are dropped: their nodes are no longer fenced");

  /**
   * Containers asked to stop and when they are killed. Written by {@code Drains} before the
   * ApplicationMaster is told.
   */
  public static final Section<DrainList> DRAINS =
      new Section<>(
          "drains",
          DrainList.class,
          new DrainList(List.of()),
          "containers being drained are no longer killed at their grace");

  /**
   * Each elastic job's measured progress, where its workers ran, and how many times it was
   * preempted. Written by {@code JobProgressMeter}: a count before the stop it counts is told.
   */
  public static final Section<Jobs> JOBS =
      new Section<>(
          "jobs",
          Jobs.class,
          new Jobs(Map.of()),
          "jobs' measured progress and preemption counts restart from zero, and a restart no longer"
              + " waits for their nodes");

  /**
   * The loan controller's target in force: how many inference nodes may be on loan, by when the
   * rest must be back, and the epoch of the controller that set it (a target of an older epoch is
   * refused). Written by the engine's {@code LoanTargets} before a target is acknowledged. (A
   * {@code controller} section that earlier versions wrote is no longer read.)
   */
  public static final Section<LoanTargetRecord> LOAN_TARGET =
      new Section<>(
          "loan-target",
          LoanTargetRecord.class,
          LoanTargetRecord.NONE,
          "nothing more is lent until the loan controller's next target, whatever its epoch");

  public static final List<Section<?>> ALL =
      List.of(META, POOLS, RECLAIMS, DRAINS, JOBS, LOAN_TARGET);

  private final String name;
  private final Class<T> type;
  private final T empty;
  private final String resetForgets;

  private Section(String name, Class<T> type, T empty, String resetForgets) {
    this.name = name;
    this.type = type;
    this.empty = empty;
    this.resetForgets = resetForgets;
  }

  public String name() {
    return name;
  }

  Class<T> type() {
    return type;
  }

  /** The value when nothing is stored. */
  T empty() {
    return empty;
  }

  /** What an operator loses by deleting this section. */
  public String resetForgets() {
    return resetForgets;
  }

  @Override
  public String toString() {
    return name;
  }
}
