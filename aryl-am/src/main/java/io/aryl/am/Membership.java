package io.aryl.am;

import java.util.List;
import java.util.Set;

/**
 * The job's containers and what to do next, as the ApplicationMaster drives it: pure bookkeeping, no YARN calls.
 * Events go in, {@link WorkerAction}s come out; one thread at a time (the AM holds a lock around it). Two
 * implementations, one per launcher: {@link WorkerGroup} ({@code --launcher env}: the AM forms every generation) and
 * {@link AgentGroup} ({@code --launcher torchrun}: torchrun's agents form them among themselves). They share the
 * container states ({@link WorkerGroup.State}), the status types and the restart budget.
 */
public interface Membership {
  /** What the previous AM attempt recorded; called once, before the first tick. */
  void resume(GenerationRecord previous, long now);

  /** The previous attempt's record exists but cannot be trusted. */
  void recordUnreadable(String problem, long now);

  /** A container granted by the RM. */
  List<WorkerAction> allocated(String id, String host, long now);

  /** A container kept from an earlier AM attempt. */
  List<WorkerAction> recovered(String id, String host, long now);

  /** The NodeManager accepted the start (or re-initialisation) of a container's process. */
  List<WorkerAction> launched(String id);

  /** The NodeManager refused to start a container's process. */
  List<WorkerAction> launchFailed(String id, String why, long now);

  /** A container ended (exited, killed or released). */
  List<WorkerAction> completed(String id, int exitStatus, String diagnostics, long now);

  /** A container's supervisor reports that its process exited, the container still held. */
  List<WorkerAction> exited(String id, int generation, int status, boolean toldToStop, long now);

  /** The RM asks for these containers back. */
  List<WorkerAction> preempted(Set<String> ids, long now);

  /** Periodic decisions. */
  List<WorkerAction> tick(long now);

  /** The generation the AM formed last; null when there is none (always, under torchrun). */
  Generation current();

  List<Generation> generations();

  List<WorkerGroup.Worker> workers();

  List<WorkerGroup.ScalingEvent> events();

  int outstandingAsks();

  int restartsUsed();

  boolean finishing();

  /** Present once the job is over; the AM then unregisters. */
  WorkerGroup.Outcome outcome();
}
