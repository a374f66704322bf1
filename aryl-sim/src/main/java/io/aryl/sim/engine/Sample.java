package io.aryl.sim.engine;

/**
 * The cluster at one instant of a run, for time series and plots.
 *
 * @param timeS seconds from the start of the window
 * @param trainingPoolBusyGpus GPUs of the training pool running training workers
 * @param loanedBusyGpus GPUs of loaned inference servers running training workers
 * @param inferenceBusyGpus GPUs serving inference (demand, in GPUs)
 * @param loanedServers inference servers lent to training (returning ones included)
 * @param queuedJobs jobs submitted and not running
 * @param runningJobs jobs running
 */
public record Sample(
    double timeS,
    int trainingPoolBusyGpus,
    int loanedBusyGpus,
    double inferenceBusyGpus,
    int loanedServers,
    int queuedJobs,
    int runningJobs) {}
