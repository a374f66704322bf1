package io.aryl.api.status;

import java.util.Map;

/**
 * One application of {@code plainDemand} in the status: an application without Aryl's tags whose
 * pending GPU containers in the training partition the last round planned for.
 *
 * @param application the application id
 * @param team its team ({@code ""} without teams)
 * @param pendingContainers the GPU containers it waits for
 * @param gpusPerContainer GPUs of each
 * @param roomMadeByNode the containers' room the round kept free for it, by node
 */
public record PlainDemand(
    String application,
    String team,
    int pendingContainers,
    int gpusPerContainer,
    Map<String, Integer> roomMadeByNode) {
  public PlainDemand {
    roomMadeByNode = Copies.map(roomMadeByNode);
  }
}
