package io.aryl.yarn.rm;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.ResourceRequest;

/**
 * What a plain application's ApplicationMaster (one without Aryl's tags) counted again when it sent
 * its GPU asks: the containers handed to it in the answer to that very heartbeat.
 *
 * <p>YARN's asks are totals. An ApplicationMaster counts what it still wants from the containers it
 * has been handed, and the Capacity Scheduler replaces its pending count with each ask it receives;
 * the containers allocated since the ApplicationMaster's last answer are handed to it only in the
 * answer to the heartbeat that carries the ask, so the ask still counts them. Until its next ask,
 * the Capacity Scheduler holds that many pending containers that nobody wants. A round that made
 * room for them shrank an elastic job for nothing: Spark's second executor, allocated between two
 * of its heartbeats, stayed pending for the three seconds until the next one, and an elastic worker
 * was drained and killed for it (then replaced once the phantom ask was gone).
 *
 * <p>Aryl's own ApplicationMasters' asks are kept by {@link AskLedger}, which counts the same
 * thing; this class is its counterpart for the applications whose asks go to the Capacity Scheduler
 * as they are.
 */
final class PlainAsks {
  /**
   * Per attempt, per ask (priority and request id): containers its last ask counted that were
   * handed over in the answer to it.
   */
  private final Map<ApplicationAttemptId, Map<String, Integer>> countedAgain =
      new ConcurrentHashMap<>();

  /**
   * An ApplicationMaster's heartbeat was answered: each GPU ask it carried at {@link
   * ResourceRequest#ANY} counted the containers of that ask handed over in the answer. An ask it
   * did not send again keeps what its last one counted: the Capacity Scheduler's pending count was
   * last replaced then.
   */
  void answered(ApplicationAttemptId attempt, List<ResourceRequest> ask, List<Container> handed) {
    if (ask == null || ask.isEmpty()) {
      return;
    }
    for (ResourceRequest rr : ask) {
      if (!ResourceRequest.ANY.equals(rr.getResourceName())
          || RmReader.gpus(rr.getCapability()) <= 0) {
        continue;
      }
      String key = key(rr.getPriority(), rr.getAllocationRequestId());
      int n = 0;
      if (handed != null) {
        for (Container c : handed) {
          if (key(c.getPriority(), c.getAllocationRequestId()).equals(key)) {
            n++;
          }
        }
      }
      Map<String, Integer> byAsk =
          countedAgain.computeIfAbsent(attempt, a -> new ConcurrentHashMap<>());
      if (n > 0) {
        byAsk.put(key, n);
      } else {
        byAsk.remove(key);
      }
    }
  }

  /**
   * How many of the Capacity Scheduler's pending containers of this ask its ApplicationMaster
   * wants: the pending count less the containers its last ask counted again, never below 0.
   */
  int wanted(ApplicationAttemptId attempt, ResourceRequest pending) {
    Map<String, Integer> byAsk = countedAgain.get(attempt);
    int again =
        byAsk == null
            ? 0
            : byAsk.getOrDefault(key(pending.getPriority(), pending.getAllocationRequestId()), 0);
    return Math.max(0, pending.getNumContainers() - again);
  }

  /** Forgets the attempts that no longer ask. */
  void retainOnly(Set<ApplicationAttemptId> attempts) {
    countedAgain.keySet().retainAll(attempts);
  }

  private static String key(Priority priority, long allocationRequestId) {
    return priority.getPriority() + "/" + allocationRequestId;
  }
}
