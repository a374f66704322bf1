package io.aryl.api.status;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code store} of the status: where the scheduler keeps what survives a restart or failover, and
 * the epoch it claimed there (it grows with every scheduler that becomes active).
 *
 * @param kind {@code zookeeper}, {@code filesystem} or {@code memory}
 * @param location the ZooKeeper path or directory
 * @param epoch the epoch this scheduler claimed
 * @param deposed why this scheduler no longer writes there (a newer one claimed the store); absent
 *     while it does
 */
public record StoreStatus(
    String kind,
    String location,
    long epoch,
    @JsonInclude(JsonInclude.Include.NON_NULL) String deposed) {}
