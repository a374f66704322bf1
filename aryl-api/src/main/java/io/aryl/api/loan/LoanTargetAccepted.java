package io.aryl.api.loan;

import io.aryl.api.status.LoanTargetStatus;

/**
 * The answer ({@code 200}) to a {@link LoanTarget} the scheduler stored and put in force, with
 * where the loans stand.
 *
 * @param target the target in force, as stored
 * @param inferenceNodes the inference pool's nodes, wherever they are now
 * @param recovering whether the scheduler still waits for the cluster after becoming active: it
 *     lends and reclaims to meet the target once it is back
 */
public record LoanTargetAccepted(LoanTargetStatus target, int inferenceNodes, boolean recovering) {}
