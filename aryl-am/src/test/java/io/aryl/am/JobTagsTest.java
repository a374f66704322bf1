package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.ElasticShape;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobTagsTest {
  static JobSpec spec(int min, int max, int gpus, String kind) {
    return new JobSpec("j", "training", min, max, gpus, 1024, 1, 3600, kind, "", 3, 30000, 512, 2, Map.of(),
        "true", List.of(), "");
  }

  @Test
  void tagNamesAreTheSchedulersContract() {
    assertThat(JobTags.MIN_WORKERS).isEqualTo(ElasticShape.MIN_WORKERS);
    assertThat(JobTags.MAX_WORKERS).isEqualTo(ElasticShape.MAX_WORKERS);
    assertThat(JobTags.GPUS_PER_WORKER).isEqualTo(ElasticShape.GPUS_PER_WORKER);
    assertThat(JobTags.PREDICTED_RUNTIME_S).isEqualTo(ElasticShape.PREDICTED_RUNTIME_S);
    assertThat(JobTags.KIND).isEqualTo(ElasticShape.KIND);
  }

  @Test
  void theSchedulerReadsTheShapeTheClientWrites() {
    assertThat(ElasticShape.fromTags(JobTags.of(spec(2, 8, 4, "bert"))))
        .contains(new ElasticShape(2, 8, 4, 3600, "bert"));
    assertThat(JobTags.of(spec(2, 8, 4, "bert")))
        .isEqualTo(new ElasticShape(2, 8, 4, 3600, "bert").toTags());
    assertThat(JobTags.of(spec(1, 1, 1, ""))).isEqualTo(new ElasticShape(1, 1, 1, 3600, "").toTags());
  }
}
