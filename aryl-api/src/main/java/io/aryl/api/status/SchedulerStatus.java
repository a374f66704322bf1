package io.aryl.api.status;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * {@code GET /ws/v1/cluster/aryl}: the scheduler's view of the pools and loans, each elastic
 * application's target against its actual workers, the last plan, reclaims in flight and done,
 * recovery, and the loan controller's target in force. The scheduler builds it once a request (its
 * {@code StatusReport}); the page, the charts' history, aryl-admin, the loan controller and the
 * tests read it.
 *
 * <p>With Aryl off ({@code aryl.scheduler.enabled=false}) the answer is {@code {"enabled": false}}
 * ({@link #disabled()}): every other component is null there and absent from the JSON. A lenient
 * read ({@link io.aryl.api.ArylJson}) gives empty lists instead.
 *
 * @param enabled whether Aryl runs in this ResourceManager
 * @param round planning rounds run since this scheduler became active
 * @param roundLatencyMs how long the last round took, milliseconds
 * @param recovery recovery after this scheduler became active
 * @param store where the durable state is
 * @param nodes every node
 * @param loanedNodes the nodes on loan, as in {@code nodes}
 * @param applications the elastic applications
 * @param teams each team's guarantee and planned GPUs; empty with fewer than two teams
 * @param plainDemand applications without Aryl's tags the last round planned for
 * @param plan the last round's plan
 * @param reclaimsInFlight reclaims still draining
 * @param reclaimsDone the last reclaims done, oldest first
 * @param drainingContainers containers being drained now
 * @param loanTarget the loan controller's target in force and what is on loan; absent before a
 *     controller set one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SchedulerStatus(
    boolean enabled,
    Long round,
    Double roundLatencyMs,
    RecoveryStatus recovery,
    StoreStatus store,
    List<NodeStatus> nodes,
    List<NodeStatus> loanedNodes,
    List<ApplicationStatus> applications,
    List<TeamStatus> teams,
    List<PlainDemand> plainDemand,
    PlanStatus plan,
    List<ReclaimStatus> reclaimsInFlight,
    List<ReclaimStatus> reclaimsDone,
    Integer drainingContainers,
    LoanTargetStatus loanTarget) {

  public SchedulerStatus {
    nodes = Copies.listOrNull(nodes);
    loanedNodes = Copies.listOrNull(loanedNodes);
    applications = Copies.listOrNull(applications);
    teams = Copies.listOrNull(teams);
    plainDemand = Copies.listOrNull(plainDemand);
    reclaimsInFlight = Copies.listOrNull(reclaimsInFlight);
    reclaimsDone = Copies.listOrNull(reclaimsDone);
  }

  /** The answer while Aryl is off: {@code {"enabled": false}}. */
  public static SchedulerStatus disabled() {
    return new SchedulerStatus(
        false, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
  }

  /** The entry of {@code nodes} with this name, or null. */
  public NodeStatus node(String name) {
    for (NodeStatus n : nodes == null ? List.<NodeStatus>of() : nodes) {
      if (n.node().equals(name)) {
        return n;
      }
    }
    return null;
  }

  /** The entry of {@code applications} with this id, or null. */
  public ApplicationStatus application(String id) {
    for (ApplicationStatus a : applications == null ? List.<ApplicationStatus>of() : applications) {
      if (a.application().equals(id)) {
        return a;
      }
    }
    return null;
  }
}
