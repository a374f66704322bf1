package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.resourcemanager.placement.ApplicationPlacementContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SubmissionAdmissionTest {
  private static final ApplicationId APP = ApplicationId.newInstance(1_700_000_000_000L, 1);

  static Stream<Arguments> placements() {
    return Stream.of(
        Arguments.of("no mapping rule: the queue submitted to", "training", null, "training"),
        Arguments.of(
            "a rule that names the leaf only",
            "default",
            new ApplicationPlacementContext("training"),
            "training"),
        Arguments.of(
            "a rule that names the parent too",
            "default",
            new ApplicationPlacementContext("ml", "root.training"),
            "root.training.ml"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("placements")
  void theCapsAreThoseOfTheQueueTheCapacitySchedulerPlacesTheJobIn(
      String what, String submittedTo, ApplicationPlacementContext placement, String checked) {
    AppAddedSchedulerEvent event = new AppAddedSchedulerEvent(APP, submittedTo, "alice", placement);
    assertThat(SubmissionAdmission.addedQueue(event)).isEqualTo(checked);
  }
}
