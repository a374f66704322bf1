package io.aryl.yarn.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.api.conf.PoolConf;
import io.aryl.core.ArylPolicy;
import io.aryl.core.PolicyConfig;
import io.aryl.core.admission.JobOrder;
import io.aryl.core.elastic.ElasticValue;
import io.aryl.core.speedup.SpeedupModel;
import io.aryl.yarn.ArylScheduler;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("ArylSettings: the scheduler's configuration, read and checked once at start-up")
class ArylSettingsTest {

  private static ArylSettings with(String key, String value) {
    return ArylSettings.from(Map.of(key, value));
  }

  @Nested
  @DisplayName("with no key set")
  class Defaults {
    private final ArylSettings s = ArylSettings.from(Map.of());

    @Test
    @DisplayName("every setting is the default ArylConf documents")
    void everySettingIsArylConfDefault() {
      assertThat(s.enabled())
          .isEqualTo(Boolean.parseBoolean(ArylConf.ENABLED.defaultValue()))
          .isTrue();
      assertThat(s.roundIntervalMs())
          .isEqualTo(Long.parseLong(ArylConf.ROUND_INTERVAL_MS.defaultValue()));
      assertThat(s.shrinkGraceMs())
          .isEqualTo(Long.parseLong(ArylConf.SHRINK_GRACE_MS.defaultValue()));
      assertThat(s.reclaimDeadlineMs())
          .isEqualTo(Long.parseLong(ArylConf.RECLAIM_DEADLINE_MS.defaultValue()));
      assertThat(s.inferenceLabel()).isEqualTo(PoolConf.INFERENCE_LABEL.defaultValue());
      assertThat(s.trainingLabel()).isEqualTo(PoolConf.TRAINING_LABEL.defaultValue());
      assertThat(s.inferenceQueue()).isEqualTo(ArylConf.INFERENCE_QUEUE.defaultValue());
      assertThat(s.trainingQueue()).isEqualTo(ArylConf.TRAINING_QUEUE.defaultValue());
      assertThat(s.inferenceNodes())
          .as("an empty pattern means no node is configured as inference")
          .isNull();
      assertThat(s.gpuType()).isEqualTo(ArylConf.GPU_TYPE.defaultValue());
      assertThat(s.policy().jobOrder()).isEqualTo(JobOrder.SHORTEST_PREDICTED_FIRST);
      assertThat(s.policy().elastic())
          .isEqualTo(Boolean.parseBoolean(ArylConf.ELASTIC.defaultValue()));
      assertThat(s.policy().elasticValue()).as("the paper's").isEqualTo(ElasticValue.JCT_REDUCTION);
      assertThat(s.policy().starvationWaitS())
          .isEqualTo(Double.parseDouble(ArylConf.STARVATION_WAIT_S.defaultValue()));
      assertThat(s.policy().rescaleOverheadS())
          .isEqualTo(Double.parseDouble(ArylConf.RESCALE_OVERHEAD_S.defaultValue()));
      assertThat(s.speedup()).as("the simulator's speed-up").isEqualTo(SpeedupModel.powerLaw(0.8));
      assertThat(s.predictor()).isEqualTo(ArylSettings.Predictor.TAG);
      assertThat(s.checkpointPollMs())
          .isEqualTo(Long.parseLong(ArylConf.CHECKPOINT_POLL_MS.defaultValue()))
          .isEqualTo(10_000);
      assertThat(s.maxWorkersPerJob())
          .as("no cap")
          .isEqualTo(Long.parseLong(ArylConf.MAX_WORKERS_PER_JOB.defaultValue()))
          .isZero();
      assertThat(s.maxGpusPerJob())
          .as("no cap")
          .isEqualTo(Long.parseLong(ArylConf.MAX_GPUS_PER_JOB.defaultValue()))
          .isZero();
    }

    @Test
    @DisplayName("defaults() is from(no keys)")
    void defaultsIsFromEmpty() {
      assertThat(ArylSettings.defaults()).usingRecursiveComparison().isEqualTo(s);
    }

    @Test
    @DisplayName("the documented defaults are exactly what the README promises")
    void documentedDefaults() {
      assertThat(s.roundIntervalMs()).isEqualTo(1000);
      assertThat(s.shrinkGraceMs()).isEqualTo(30_000);
      assertThat(s.reclaimDeadlineMs()).isEqualTo(120_000);
      assertThat(s.policy().starvationWaitS()).isEqualTo(43_200);
      assertThat(s.policy().rescaleOverheadS()).isEqualTo(30);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ArylConf.class)
    @DisplayName("setting a key to its own default changes nothing")
    void explicitDefaultChangesNothing(ArylConf c) {
      assertThat(with(c.key(), c.defaultValue())).usingRecursiveComparison().isEqualTo(s);
    }
  }

  @Nested
  @DisplayName("values that are accepted")
  class Accepted {
    @Test
    @DisplayName("every key is read, with blanks around values trimmed")
    void everyKeyIsRead() {
      Map<String, String> raw = new HashMap<>();
      raw.put("aryl.scheduler.enabled", " FALSE ");
      raw.put("aryl.scheduler.round-interval-ms", " 250");
      raw.put("aryl.scheduler.shrink-grace-ms", "0");
      raw.put("aryl.scheduler.reclaim.default-deadline-ms", "60000");
      raw.put("aryl.pools.inference.label", "serve");
      raw.put("aryl.pools.training.label", " train ");
      raw.put("aryl.scheduler.inference.queue", "root.serve");
      raw.put("aryl.scheduler.training.queue", "root.research");
      raw.put("aryl.scheduler.inference.nodes", "inf-\\d+(:\\d+)?");
      raw.put("aryl.scheduler.gpu-type", "A100");
      raw.put("aryl.scheduler.job-order", "FIFO");
      raw.put("aryl.scheduler.elastic", "false");
      raw.put("aryl.scheduler.elastic-value", "Shortest-Remaining-First");
      raw.put("aryl.scheduler.starvation-wait-s", "3600.5");
      raw.put("aryl.scheduler.rescale-overhead-s", "0");
      raw.put("aryl.scheduler.speedup-exponent", "1");
      raw.put("aryl.scheduler.predictor", "History");
      raw.put("aryl.scheduler.checkpoint-poll-ms", "0");
      raw.put("aryl.scheduler.max-workers-per-job", "32");
      raw.put("aryl.scheduler.max-gpus-per-job", " 64 ");
      ArylSettings s = ArylSettings.from(raw);

      assertThat(s.enabled()).isFalse();
      assertThat(s.roundIntervalMs()).isEqualTo(250);
      assertThat(s.shrinkGraceMs()).isZero();
      assertThat(s.reclaimDeadlineMs()).isEqualTo(60_000);
      assertThat(s.inferenceLabel()).isEqualTo("serve");
      assertThat(s.trainingLabel()).isEqualTo("train");
      assertThat(s.inferenceQueue()).isEqualTo("root.serve");
      assertThat(s.trainingQueue()).isEqualTo("root.research");
      assertThat(s.inferenceNodes().pattern()).isEqualTo("inf-\\d+(:\\d+)?");
      assertThat(s.gpuType()).isEqualTo("A100");
      assertThat(s.policy().jobOrder()).isEqualTo(JobOrder.FIFO);
      assertThat(s.policy().elastic()).isFalse();
      assertThat(s.policy().elasticValue()).isEqualTo(ElasticValue.SHORTEST_REMAINING_FIRST);
      assertThat(s.policy().starvationWaitS()).isEqualTo(3600.5);
      assertThat(s.policy().rescaleOverheadS()).isZero();
      assertThat(s.speedup()).as("linear").isEqualTo(SpeedupModel.linear());
      assertThat(s.predictor()).isEqualTo(ArylSettings.Predictor.HISTORY);
      assertThat(s.checkpointPollMs()).as("0 turns the checkpoint reads off").isZero();
      assertThat(s.maxWorkersPerJob()).isEqualTo(32);
      assertThat(s.maxGpusPerJob()).isEqualTo(64);
    }

    @Test
    @DisplayName(
        "aryl+ is the simulator's aryl+: speed-aware, spare GPUs shortest-remaining-first unless set")
    void arylPlusIsTheSimulatorsPolicy() {
      ArylSettings plus = ArylSettings.from(Map.of("aryl.scheduler.policy", "aryl+"));
      assertThat(plus.policy()).isEqualTo(PolicyConfig.defaults().withArylPlus());
      assertThat(plus.policy().speedAware()).isTrue();
      assertThat(plus.policy().elasticValue()).isEqualTo(ElasticValue.SHORTEST_REMAINING_FIRST);
      ArylSettings chosen =
          ArylSettings.from(
              Map.of(
                  "aryl.scheduler.policy",
                  "aryl+",
                  "aryl.scheduler.elastic-value",
                  "jct-reduction"));
      assertThat(chosen.policy().speedAware()).isTrue();
      assertThat(chosen.policy().elasticValue())
          .as("the operator's choice stands")
          .isEqualTo(ElasticValue.JCT_REDUCTION);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ArylPolicy.class)
    @DisplayName(
        "every policy aryl-core names is accepted by its name, in any case, and runs that policy's round")
    void everyNamedPolicy(ArylPolicy named) {
      assertThat(
              ArylSettings.from(
                      Map.of("aryl.scheduler.policy", named.policyName().toUpperCase(Locale.ROOT)))
                  .policy())
          .isEqualTo(named.applyTo(PolicyConfig.defaults()));
      assertThat(ArylConf.POLICY.doc())
          .as("the key's description names it")
          .contains(named.policyName());
    }

    @Test
    @DisplayName("a policy name aryl-core does not know is refused, naming the ones it does")
    void unknownPolicy() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> with("aryl.scheduler.policy", "aryl++"))
          .withMessage("aryl.scheduler.policy must be aryl or aryl+, was 'aryl++'");
    }

    @Test
    @DisplayName("keys of other systems, and aryl keys outside aryl.scheduler., are ignored")
    void otherKeysIgnored() {
      ArylSettings s =
          ArylSettings.from(
              Map.of(
                  "yarn.resourcemanager.scheduler.class", "io.aryl.yarn.ArylScheduler",
                  "aryl.min-workers", "nonsense",
                  "aryl.schedulerx", "nonsense"));
      assertThat(s).usingRecursiveComparison().isEqualTo(ArylSettings.defaults());
    }
  }

  @Nested
  @DisplayName("a wrong value stops the start with a message naming the key and the value")
  class Refused {
    static Stream<Arguments> wrongValues() {
      return Stream.of(
          Arguments.of(ArylConf.ENABLED, "yes"),
          Arguments.of(ArylConf.ENABLED, ""),
          Arguments.of(ArylConf.ELASTIC, "1"),
          Arguments.of(ArylConf.ROUND_INTERVAL_MS, "0"),
          Arguments.of(ArylConf.ROUND_INTERVAL_MS, "-1000"),
          Arguments.of(ArylConf.ROUND_INTERVAL_MS, "1s"),
          Arguments.of(ArylConf.ROUND_INTERVAL_MS, "1.5"),
          Arguments.of(ArylConf.ROUND_INTERVAL_MS, ""),
          Arguments.of(ArylConf.SHRINK_GRACE_MS, "-1"),
          Arguments.of(ArylConf.SHRINK_GRACE_MS, "30s"),
          Arguments.of(ArylConf.RECLAIM_DEADLINE_MS, "0"),
          Arguments.of(ArylConf.RECLAIM_DEADLINE_MS, "two minutes"),
          Arguments.of(ArylConf.INFERENCE_QUEUE, ""),
          Arguments.of(ArylConf.TRAINING_QUEUE, ""),
          Arguments.of(ArylConf.GPU_TYPE, ""),
          Arguments.of(ArylConf.INFERENCE_NODES, "inf-[0-9"),
          Arguments.of(ArylConf.JOB_ORDER, "srtf"),
          Arguments.of(ArylConf.ELASTIC_VALUE, "srpt"),
          Arguments.of(ArylConf.STARVATION_WAIT_S, "0"),
          Arguments.of(ArylConf.STARVATION_WAIT_S, "-1"),
          Arguments.of(ArylConf.STARVATION_WAIT_S, "NaN"),
          Arguments.of(ArylConf.STARVATION_WAIT_S, "Infinity"),
          Arguments.of(ArylConf.STARVATION_WAIT_S, "12h"),
          Arguments.of(ArylConf.RESCALE_OVERHEAD_S, "-0.5"),
          Arguments.of(ArylConf.RESCALE_OVERHEAD_S, "NaN"),
          Arguments.of(ArylConf.RESCALE_OVERHEAD_S, "Infinity"),
          Arguments.of(ArylConf.SPEEDUP_EXPONENT, "0"),
          Arguments.of(ArylConf.SPEEDUP_EXPONENT, "1.2"),
          Arguments.of(ArylConf.SPEEDUP_EXPONENT, "NaN"),
          Arguments.of(ArylConf.PREDICTOR, "oracle"),
          Arguments.of(ArylConf.CHECKPOINT_POLL_MS, "-1"),
          Arguments.of(ArylConf.CHECKPOINT_POLL_MS, "10s"),
          Arguments.of(ArylConf.MAX_WORKERS_PER_JOB, "-1"),
          Arguments.of(ArylConf.MAX_WORKERS_PER_JOB, "eight"),
          Arguments.of(ArylConf.MAX_GPUS_PER_JOB, "-64"),
          Arguments.of(ArylConf.MAX_GPUS_PER_JOB, "1.5"),
          Arguments.of(ArylConf.MAX_GPUS_PER_JOB, "64 GPUs"));
    }

    @ParameterizedTest(name = "{0} = ''{1}''")
    @MethodSource("wrongValues")
    @DisplayName("throws IllegalArgumentException")
    void namesKeyAndValue(ArylConf key, String value) {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> with(key.key(), value))
          .withMessageContaining(key.key())
          .withMessageContaining("'" + value.trim() + "'");
    }

    @Test
    @DisplayName("an unknown aryl.scheduler. key (a typo) is refused, naming it and the known keys")
    void unknownKeyRefused() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> with("aryl.scheduler.round-intervall-ms", "500"))
          .withMessageContaining("aryl.scheduler.round-intervall-ms")
          .withMessageContaining(ArylConf.ROUND_INTERVAL_MS.key());
    }

    @ParameterizedTest(name = "{0} = ''{1}''")
    @CsvSource({"aryl.pools.inference.label, ''", "aryl.pools.training.label, '   '"})
    @DisplayName("a pool's label must not be empty")
    void poolLabelNotEmpty(String key, String value) {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> with(key, value))
          .withMessage(key + " must be non-empty, was ''");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
      "aryl.scheduler.inference.label, aryl.pools.inference.label",
      "aryl.scheduler.training.label, aryl.pools.training.label"
    })
    @DisplayName(
        "a pool's label under its old key stops the start, in one line naming the old key, its value and the"
            + " new key")
    void oldLabelKeyRefused(String old, String renamed) {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> with(old, "serve"))
          .withMessage(
              "configuration key "
                  + old
                  + "=serve was renamed to "
                  + renamed
                  + ": set "
                  + renamed
                  + "=serve instead (the scheduler, the loan controller and aryl-am all read it)");
    }

    @Test
    @DisplayName("an unknown aryl.pools. key (a typo) is refused, naming it and the known keys")
    void unknownPoolKeyRefused() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> with("aryl.pools.inference.lable", "serve"))
          .withMessageContaining("aryl.pools.inference.lable=serve")
          .withMessageContaining(PoolConf.INFERENCE_LABEL.key());
    }

    @Test
    @DisplayName("the bare prefix is an unknown key")
    void barePrefixRefused() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> with("aryl.scheduler.", "x"))
          .withMessageContaining("unknown configuration key aryl.scheduler.");
    }

    @Test
    @DisplayName("the inference and training labels must differ")
    void labelsMustDiffer() {
      assertThatIllegalArgumentException()
          .isThrownBy(
              () ->
                  ArylSettings.from(
                      Map.of(
                          "aryl.pools.inference.label", "gpu", "aryl.pools.training.label", "gpu")))
          .withMessageContaining(PoolConf.INFERENCE_LABEL.key())
          .withMessageContaining(PoolConf.TRAINING_LABEL.key())
          .withMessageContaining("'gpu'");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> with("aryl.pools.inference.label", "training"))
          .withMessageContaining("'training'");
    }

    @Test
    @DisplayName("the inference and training queues must differ")
    void queuesMustDiffer() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> with("aryl.scheduler.training.queue", "root.inference"))
          .withMessageContaining(ArylConf.INFERENCE_QUEUE.key())
          .withMessageContaining(ArylConf.TRAINING_QUEUE.key())
          .withMessageContaining("'root.inference'");
    }
  }

  @Nested
  @DisplayName("configuredAsInference")
  class ConfiguredAsInference {
    static Stream<Arguments> names() {
      return Stream.of(
          Arguments.of("inf-\\d+", "inf-1", true),
          Arguments.of("inf-\\d+", "inf-12", true),
          Arguments.of("inf-\\d+", "inf-1:8041", false),
          Arguments.of("inf-\\d+(:\\d+)?", "inf-1:8041", true),
          Arguments.of("inf-\\d+", "xinf-1", false),
          Arguments.of("inf-\\d+", "inf-", false),
          Arguments.of("gpu-(0[1-4])\\.example\\.com", "gpu-03.example.com", true),
          Arguments.of("gpu-(0[1-4])\\.example\\.com", "gpu-05.example.com", false),
          Arguments.of("", "inf-1", false),
          Arguments.of("", "", false));
    }

    @ParameterizedTest(name = "pattern ''{0}'' and node ''{1}'': {2}")
    @MethodSource("names")
    @DisplayName("matches the whole node name against aryl.scheduler.inference.nodes")
    void matchesWholeName(String pattern, String node, boolean expected) {
      assertThat(with(ArylConf.INFERENCE_NODES.key(), pattern).configuredAsInference(node))
          .isEqualTo(expected);
    }
  }

  @Nested
  @DisplayName("read from the ResourceManager's configuration")
  class FromTheRmConfiguration {
    private static Configuration conf(String... keysAndValues) {
      Configuration conf = new Configuration(false);
      for (int i = 0; i < keysAndValues.length; i += 2) {
        conf.set(keysAndValues[i], keysAndValues[i + 1]);
      }
      return conf;
    }

    @Test
    @DisplayName("the aryl.scheduler. and aryl.pools. keys are read; others are not Aryl's")
    void bothPrefixesRead() {
      ArylSettings s =
          ArylScheduler.readSettings(
              conf(
                  "aryl.pools.inference.label",
                  "serve",
                  "aryl.scheduler.inference.queue",
                  "root.serve",
                  "yarn.scheduler.capacity.root.queues",
                  "serve,training"));
      assertThat(s.inferenceLabel()).isEqualTo("serve");
      assertThat(s.inferenceQueue()).isEqualTo("root.serve");
    }

    @Test
    @DisplayName("a label under its old key stops the start in one line, the RM's prefix before it")
    void oldKeyStopsTheStart() {
      assertThatThrownBy(
              () -> ArylScheduler.readSettings(conf("aryl.scheduler.training.label", "train")))
          .isInstanceOf(YarnRuntimeException.class)
          .hasMessage(
              "Aryl configuration: configuration key aryl.scheduler.training.label=train was renamed to"
                  + " aryl.pools.training.label: set aryl.pools.training.label=train instead (the scheduler, the loan"
                  + " controller and aryl-am all read it)");
    }
  }
}
