package io.aryl.api.status;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * One node of the status's {@link SchedulerStatus#nodes()} (and of {@link
 * SchedulerStatus#loanedNodes()}).
 *
 * @param node the node's name as the ResourceManager reports it ({@code host:port})
 * @param label its node label now ({@code ""}: the default partition)
 * @param gpus its GPUs
 * @param usedGpus GPUs its containers hold
 * @param owner the pool that owns it: inference for a node ever seen with the inference label or
 *     named by {@code aryl.scheduler.inference.nodes}, else training for a node labelled training;
 *     absent for any other node (the default partition, which holds ApplicationMasters and plain
 *     work, or a label that is neither pool's): it belongs to neither pool
 * @param loaned owned by inference and labelled training: on loan
 * @param fenced part of a reclaim: nothing new is placed there
 * @param gpuType its GPU type; {@code null} when its type is unknown ({@code gpuTypeError} says
 *     why)
 * @param gpuSpeed its GPUs' training speed relative to the reference GPU
 * @param gpuTypeError why its GPU type is unknown; absent when it is known
 * @param place where an inference node is, as the scheduler (the one writer of it) recorded it;
 *     absent for every other node
 */
public record NodeStatus(
    String node,
    String label,
    int gpus,
    int usedGpus,
    @JsonInclude(JsonInclude.Include.NON_NULL) Pool owner,
    boolean loaned,
    boolean fenced,
    String gpuType,
    double gpuSpeed,
    @JsonInclude(JsonInclude.Include.NON_NULL) String gpuTypeError,
    @JsonInclude(JsonInclude.Include.NON_NULL) Place place) {

  /** Where an inference node is. */
  public enum Place {
    /** In the inference pool. */
    HOME,
    /** Chosen to be lent: fenced until it is relabelled training. */
    LENDING,
    /** Lent to training. */
    LENT,
    /** Lent, and being returned by a reclaim in flight. */
    RETURNING
  }

  /**
   * A pool of GPU nodes, as an owner. Its node label is configured ({@code aryl.pools.*.label});
   * this is not it.
   */
  public enum Pool {
    INFERENCE("inference"),
    TRAINING("training");

    private final String value;

    Pool(String value) {
      this.value = value;
    }

    /** Its name in the JSON. */
    @JsonValue
    public String value() {
      return value;
    }
  }

  /** Owned by inference and on loan to training. */
  public boolean onLoan() {
    return owner == Pool.INFERENCE && loaned;
  }
}
