package io.aryl.api.status;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * {@code recovery} of the status: after this scheduler became active (a restart, a failover),
 * nothing is drained, killed, shrunk or relabelled until the nodes that held Aryl's workers or are
 * being reclaimed have re-registered, or {@code maxWaitMs} passed. Written by the scheduler's
 * recovery gate.
 *
 * @param recovering true until then
 * @param sinceMs epoch milliseconds this scheduler became active
 * @param readyMs epoch milliseconds recovery ended, or -1 while it goes on
 * @param maxWaitMs the longest it waits for nodes ({@code aryl.scheduler.recovery.max-wait-ms})
 * @param expectedNodes how many nodes it waits for in all
 * @param waitingForNodes the nodes it still waits for, sorted
 * @param outcome how recovery ended, in words; absent while it goes on
 */
public record RecoveryStatus(
    boolean recovering,
    long sinceMs,
    long readyMs,
    long maxWaitMs,
    int expectedNodes,
    List<String> waitingForNodes,
    @JsonInclude(JsonInclude.Include.NON_NULL) String outcome) {
  public RecoveryStatus {
    waitingForNodes = Copies.list(waitingForNodes);
  }
}
