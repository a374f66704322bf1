package io.aryl.yarn.engine;

import io.aryl.core.PolicyConfig;
import io.aryl.core.admission.JobOrder;
import io.aryl.core.job.JobShape;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.QueuePlace;
import io.aryl.core.placement.BaseSplit;
import io.aryl.core.placement.ServerTable;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.RoundInput;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job whose base gang a round did not admit says why in its application's diagnostics, which
 * {@code yarn application -status}, the client's {@code status} and the RM UI show, e.g. {@code
 * Aryl: waiting for 4 workers x 2 GPUs (8 GPUs) on training; 3 GPUs free now, largest node 2 free;
 * queued behind 2 jobs (shortest predicted first)}. Once a round admits it, the message is cleared.
 *
 * <p>Its place in the queue is the one the round's admission gave it, as the plan records it
 * ({@link Plan#waiting()}): the waiting jobs offered their gang before it, its standing with the
 * starvation guard, and whether nodes are held for it. Nothing here decides again what the round
 * decided.
 *
 * <p>"Free" is what a base gang could use this round: a node's GPUs less the base workers of the
 * jobs the plan runs. GPUs held by other jobs' extra (elastic) workers count as free, since a gang
 * takes them back.
 *
 * <p>The adapter puts the message where YARN keeps the diagnostics of a running attempt: {@code
 * RMAppAttempt#updateAMLaunchDiagnostics}. The ResourceManager sets that text while an attempt's
 * ApplicationMaster is being launched and clears it when the ApplicationMaster registers; a report
 * of a RUNNING application shows it as long as neither the application nor the attempt has
 * diagnostics of its own (which they get only when they end, and which then take precedence).
 */
final class WaitingMessages {
  private static final Logger LOG = LoggerFactory.getLogger(WaitingMessages.class);

  /** What every message starts with. */
  static final String PREFIX = "Aryl: ";

  /**
   * The place of a waiting job the round did not queue: one left out of its snapshot (no node has
   * room for one of its workers now), or one it preempted.
   */
  private static final QueuePlace UNPLACED =
      new QueuePlace(0, 0, QueuePlace.Standing.NOT_STARVING, false);

  private final String poolLabel;
  private final JobOrder order;

  /** Applications that were given a message and have not been cleared since. */
  private final Set<String> told = new HashSet<>();

  WaitingMessages(String poolLabel, PolicyConfig policy) {
    this.poolLabel = poolLabel;
    this.order = policy.jobOrder();
  }

  /**
   * After a round: every job that asks for its base gang and is not in the plan gets its message,
   * its place in the queue as the round's admission recorded it ({@link Plan#waiting()}); a job
   * that had one and no longer waits has it cleared. Never throws: a message is not worth a round.
   *
   * @param views the round's elastic applications
   * @param input what the round planned on
   * @param plan what it decided
   * @return the messages to set and to clear
   */
  List<Action> publish(Map<String, AppView> views, RoundInput input, Plan plan) {
    List<Action> out = new ArrayList<>();
    try {
      Set<String> waiting = new HashSet<>();
      if (told.isEmpty() && views.values().stream().noneMatch(app -> waits(app, input, plan))) {
        return out; // nobody to tell or to clear: no walk of the nodes
      }
      // The same for every waiting job of one worker size: once per size, not once per job (each a
      // walk of every node)
      Map<Integer, Room> rooms = new HashMap<>();
      for (AppView app : views.values()) {
        JobShape shape = app.shape();
        if (!waits(app, input, plan)) {
          continue;
        }
        QueuePlace place = plan.waiting().getOrDefault(app.id(), UNPLACED);
        Room room =
            rooms.computeIfAbsent(shape.gpusPerWorker(), g -> Room.of(input.state(), plan, g));
        out.add(new Action.Diagnose(app.id(), message(poolLabel, shape, room, place, order)));
        waiting.add(app.id());
      }
      for (String id : told) {
        if (!waiting.contains(id) && views.containsKey(id)) {
          out.add(new Action.Diagnose(id, null));
        }
      }
      told.clear();
      told.addAll(waiting);
      return out;
    } catch (RuntimeException e) {
      LOG.warn("Aryl could not update the diagnostics of waiting jobs: {}", e.toString());
      return List.of();
    }
  }

  /** Whether the job asks for its base gang and the round left it waiting. */
  private static boolean waits(AppView app, RoundInput input, Plan plan) {
    boolean asksForItsGang =
        input.liveWorkers(app.id()) + app.askedWorkers() >= app.shape().minWorkers();
    return asksForItsGang && plan.target(app.id()).isEmpty();
  }

  /**
   * The message of a waiting job.
   *
   * @param place where the round's admission put it: the waiting jobs offered their gang before it,
   *     its standing with the starvation guard, and whether nodes are held for it (the first job
   *     offered, if starving, reserves nodes whether the senior lane put it first or the job order
   *     did)
   */
  static String message(String pool, JobShape shape, Room room, QueuePlace place, JobOrder order) {
    int ahead = place.waitingAhead();
    int g = shape.gpusPerWorker();
    StringBuilder m =
        new StringBuilder(PREFIX)
            .append("waiting for ")
            .append(count(shape.minWorkers(), "worker"))
            .append(" x ")
            .append(count(g, "GPU"))
            .append(" (")
            .append(count(shape.baseGpus(), "GPU"))
            .append(") on ")
            .append(pool)
            .append("; ")
            .append(count(room.freeGpus(), "GPU"))
            .append(" free now, largest node ")
            .append(room.largestNodeFree())
            .append(" free");
    boolean holdsIt = room.workersThePoolHolds() >= shape.minWorkers();
    if (!holdsIt) {
      m.append("; the ")
          .append(pool)
          .append(" pool holds at most ")
          .append(count(room.workersThePoolHolds(), "worker"))
          .append(" of ")
          .append(count(g, "GPU"))
          .append(" now: it waits for more nodes (lent by inference)");
    }
    String held = holdsIt && place.reserved() ? ", and nodes are held for it as they free" : "";
    String orderName =
        order == JobOrder.FIFO ? "first come, first served" : "shortest predicted first";
    switch (place.standing()) {
      case IN_THE_LANE -> {
        m.append("; waited past aryl.scheduler.starvation-wait-s and is in the senior lane");
        if (ahead > 0) {
          m.append(", behind ").append(count(ahead, "older job"));
        } else {
          m.append(": it goes first").append(held);
        }
      }
      case OUTSIDE_THE_LANE -> {
        m.append(
            "; waited past aryl.scheduler.starvation-wait-s, but older jobs fill the senior lane: ");
        if (ahead > 0) {
          m.append("queued behind ")
              .append(count(ahead, "job"))
              .append(" (")
              .append(orderName)
              .append(')');
        } else {
          m.append("it is first in line by ").append(orderName).append(held);
        }
      }
      case NOT_STARVING -> {
        if (ahead > 0) {
          m.append("; queued behind ")
              .append(count(ahead, "job"))
              .append(" (")
              .append(orderName)
              .append(')');
        }
      }
    }
    return m.toString();
  }

  private static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  /**
   * What a base gang could use this round, on the nodes that take new workers.
   *
   * @param freeGpus GPUs not held by the base workers of jobs the plan runs
   * @param largestNodeFree the most of them on one node
   * @param workersThePoolHolds workers of the job's size the nodes would hold if they were empty
   */
  record Room(long freeGpus, long largestNodeFree, long workersThePoolHolds) {
    static Room of(ClusterState state, Plan plan, int gpusPerWorker) {
      ServerTable table = new ServerTable(state.servers());
      int[] free = new int[table.size()];
      for (int s = 0; s < table.size(); s++) {
        free[s] = table.gpus(s);
      }
      for (Map.Entry<String, Allocation> e : plan.targets().entrySet()) {
        Job job = state.job(e.getKey());
        BaseSplit.Parts parts =
            BaseSplit.split(job, e.getValue(), table, BaseSplit.ownOpenFirst(table));
        for (int i = 0; i < parts.servers().length; i++) {
          free[parts.servers()[i]] -= parts.base()[i] * job.gpusPerWorker();
        }
      }
      long total = 0;
      long largest = 0;
      long holds = 0;
      for (int s = 0; s < table.size(); s++) {
        if (table.open(s)) {
          total += Math.max(0, free[s]);
          largest = Math.max(largest, free[s]);
          holds += table.gpus(s) / gpusPerWorker;
        }
      }
      return new Room(total, largest, holds);
    }
  }
}
