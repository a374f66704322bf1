package io.aryl.yarnapp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionContract;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.StrictPreemptionContract;
import org.apache.hadoop.yarn.util.Records;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("PreemptedContainers: the containers a preemption message names")
class PreemptedContainersTest {
  private static final ApplicationAttemptId ATTEMPT =
      ApplicationAttemptId.newInstance(ApplicationId.newInstance(5, 1), 1);

  private static Set<PreemptionContainer> containers(long... ids) {
    return java.util.Arrays.stream(ids)
        .mapToObj(
            i -> {
              PreemptionContainer c = Records.newRecord(PreemptionContainer.class);
              c.setId(ContainerId.newContainerId(ATTEMPT, i));
              return c;
            })
        .collect(Collectors.toSet());
  }

  private static String id(long i) {
    return ContainerId.newContainerId(ATTEMPT, i).toString();
  }

  @Test
  @DisplayName("the strict contract's and the negotiable one's, together")
  void both() {
    PreemptionMessage m = Records.newRecord(PreemptionMessage.class);
    StrictPreemptionContract strict = Records.newRecord(StrictPreemptionContract.class);
    strict.setContainers(containers(2, 3));
    PreemptionContract contract = Records.newRecord(PreemptionContract.class);
    contract.setContainers(containers(3, 4));
    contract.setResourceRequest(List.of());
    m.setStrictContract(strict);
    m.setContract(contract);
    assertThat(PreemptedContainers.of(m)).containsExactlyInAnyOrder(id(2), id(3), id(4));
  }

  @Test
  @DisplayName("a message with either contract missing names the other's; with none, nothing")
  void either() {
    PreemptionMessage strictOnly = Records.newRecord(PreemptionMessage.class);
    StrictPreemptionContract strict = Records.newRecord(StrictPreemptionContract.class);
    strict.setContainers(containers(9));
    strictOnly.setStrictContract(strict);
    assertThat(PreemptedContainers.of(strictOnly)).containsExactly(id(9));
    assertThat(PreemptedContainers.of(Records.newRecord(PreemptionMessage.class))).isEmpty();
  }
}
