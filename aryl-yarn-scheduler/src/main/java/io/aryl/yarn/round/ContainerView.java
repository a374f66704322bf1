package io.aryl.yarn.round;

/**
 * A running container as a round sees it.
 *
 * @param id container id
 * @param appId its application
 * @param seq creation order within the cluster (larger = newer)
 * @param gpus GPUs it holds
 * @param amContainer true for an ApplicationMaster's container
 */
public record ContainerView(String id, String appId, long seq, int gpus, boolean amContainer) {}
