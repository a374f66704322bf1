package io.aryl.core.predict;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.Job;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("OraclePredictor")
class OraclePredictorTest {
  private final OraclePredictor oracle = new OraclePredictor();

  @Test
  void predicts_the_true_remaining_work() {
    Job job = Job.builder("j1").remainingS(1234.5).predictedRemainingS(99).build();

    assertThat(oracle.predictRemainingS(job)).isEqualTo(1234.5);
  }

  @Test
  void apply_overwrites_a_stale_prediction_with_the_truth_and_keeps_everything_else() {
    Job job =
        Job.builder("j1")
            .kind("bert")
            .submitTimeS(10)
            .gpusPerWorker(2)
            .workers(1, 4)
            .remainingS(500)
            .predictedRemainingS(7)
            .attainedS(30)
            .build();

    Job applied = oracle.apply(job);

    assertThat(applied.predictedRemainingS()).isEqualTo(500);
    assertThat(applied).isEqualTo(job.toBuilder().predictedRemainingS(500).build());
  }
}
