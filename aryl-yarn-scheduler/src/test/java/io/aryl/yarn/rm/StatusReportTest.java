package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.core.model.Plan;
import io.aryl.core.victim.Fate;
import io.aryl.yarn.reclaim.Reclaim;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The status names what the scheduler decides by the status's own enums (aryl-api), which its clients read: each of the
 * scheduler's values must have its name there, or a status holding it could not be written.
 */
@DisplayName("StatusReport: every decision the scheduler makes has its name in the status")
class StatusReportTest {
  private static String[] names(Enum<?>[] values) {
    return Arrays.stream(values).map(Enum::name).toArray(String[]::new);
  }

  @Test
  @DisplayName("a plan's changes, and NONE for no change")
  void changes() {
    for (Plan.Change c : Plan.Change.values()) {
      assertThat(StatusReport.change(c).name()).isEqualTo(c.name());
    }
    assertThat(StatusReport.change(null)).isEqualTo(ApplicationStatus.Change.NONE);
    List<String> written = new ArrayList<>(List.of(names(Plan.Change.values())));
    written.add("NONE");
    assertThat(names(ApplicationStatus.Change.values())).as("no name the scheduler never writes")
        .containsExactlyInAnyOrderElementsOf(written);
  }

  @Test
  @DisplayName("a reclaim's phases and the planner's actions on its jobs")
  void reclaims() {
    assertThat(names(ReclaimStatus.Phase.values())).containsExactly(names(Reclaim.Phase.values()));
    assertThat(names(ReclaimStatus.Action.values())).containsExactly(names(Fate.values()));
  }
}
