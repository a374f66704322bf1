package io.aryl.yarn;

import io.aryl.yarn.rm.PlanAwareOrdering;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.SchedulableEntity;

/**
 * The training queue's {@code ordering-policy} with Aryl ({@code
 * yarn.scheduler.capacity.root.training.ordering-policy=io.aryl.yarn.PlanAwareOrderingPolicy}):
 * FIFO, except that elastic applications with nothing to be given are not offered a node. The name
 * operators configure; the behaviour is {@link PlanAwareOrdering}'s.
 */
public class PlanAwareOrderingPolicy<S extends SchedulableEntity> extends PlanAwareOrdering<S> {}
