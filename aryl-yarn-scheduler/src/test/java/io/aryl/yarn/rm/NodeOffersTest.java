package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.job.JobShape;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.MockSchedulableEntity;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.SchedulableEntity;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "NodeOffers: a node is offered to plain applications and to the elastic ones the plan placed")
class NodeOffersTest {
  private static final ElasticApps APPS = new ElasticApps();

  static {
    APPS.register("placed-here", new JobShape(1, 4, 1, 600, ""), 0);
    APPS.register("placed-elsewhere", new JobShape(1, 4, 1, 600, ""), 0);
    APPS.register("waiting", new JobShape(1, 4, 1, 600, ""), 0);
  }

  private static SchedulableEntity app(String id) {
    MockSchedulableEntity e = new MockSchedulableEntity();
    e.setId(id);
    return e;
  }

  private static boolean offered(Predicate<SchedulableEntity> offers, String id) {
    return offers.test(app(id));
  }

  @Test
  @DisplayName(
      "in a node's heartbeat: the elastic applications promised workers on that node, and every plain one")
  void onNode() {
    Predicate<SchedulableEntity> offers = new NodeOffers(APPS).onNode(Map.of("placed-here", 2));
    assertThat(offered(offers, "placed-here")).isTrue();
    assertThat(offered(offers, "placed-elsewhere")).isFalse();
    assertThat(offered(offers, "waiting")).isFalse();
    assertThat(offered(offers, "a-mapreduce-job")).isTrue();
  }

  @Test
  @DisplayName(
      "outside heartbeats: the elastic applications the plan admitted anywhere, and every plain one")
  void anywhere() {
    Set<String> admitted = Set.of("placed-here", "placed-elsewhere");
    Predicate<SchedulableEntity> offers = new NodeOffers(APPS).anywhere(admitted::contains);
    assertThat(offered(offers, "placed-here")).isTrue();
    assertThat(offered(offers, "placed-elsewhere")).isTrue();
    assertThat(offered(offers, "waiting")).isFalse();
    assertThat(offered(offers, "a-mapreduce-job")).isTrue();
  }
}
