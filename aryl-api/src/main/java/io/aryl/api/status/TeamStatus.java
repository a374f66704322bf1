package io.aryl.api.status;

/**
 * One team of the status's {@link SchedulerStatus#teams()} (a child queue of the training queue;
 * listed with two teams or more).
 *
 * @param team the queue's name
 * @param guaranteedGpus GPUs of the training pool's own nodes guaranteed to it
 * @param plannedGpus GPUs the last round planned for its jobs
 */
public record TeamStatus(String team, int guaranteedGpus, int plannedGpus) {}
