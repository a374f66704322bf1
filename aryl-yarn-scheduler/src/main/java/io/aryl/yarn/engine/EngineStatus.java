package io.aryl.yarn.engine;

import io.aryl.api.status.LoanTargetStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.RecoveryStatus;
import io.aryl.core.model.Plan;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What the engine remembers, as the status shows it.
 *
 * @param rounds rounds planned since this scheduler became active
 * @param inferenceOwned whether a node is the inference pool's
 * @param fenced nodes that take no new container
 * @param book the one target set
 * @param lastInput what the last round planned on; null before the first
 * @param lastPlan what it decided; null before the first
 * @param reclaimsInFlight reclaims not done yet
 * @param reclaimsDone the last reclaims done, newest first
 * @param draining containers being drained
 * @param recovery the wait for the cluster after becoming active
 * @param deposed why this scheduler stopped acting, or null
 * @param places where each inference node is (home, being lent, lent, being returned)
 * @param loanTarget the loan controller's target in force and what is on loan; null before one was
 *     set
 * @param preemptions how many times each job was stopped as a whole, as stored; jobs never stopped
 *     are absent
 */
public record EngineStatus(
    long rounds,
    Predicate<String> inferenceOwned,
    Set<String> fenced,
    PlanBook book,
    RoundInput lastInput,
    Plan lastPlan,
    List<Reclaim> reclaimsInFlight,
    List<Reclaim> reclaimsDone,
    int draining,
    RecoveryStatus recovery,
    String deposed,
    Map<String, NodeStatus.Place> places,
    LoanTargetStatus loanTarget,
    Map<String, Integer> preemptions) {}
