package io.aryl.conf;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.conf.PoolConf;
import io.aryl.yarn.conf.ArylConf;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Aryl settings in the templates")
class ArylSettingsTemplateTest {

  private static List<Templates.Property> arylProperties() {
    return Templates.allProperties().stream().filter(p -> p.name().startsWith("aryl.")).toList();
  }

  /**
   * A key as the code defines it: the scheduler's own (ArylConf) or the pools' labels (aryl-api's
   * PoolConf).
   */
  private record Key(String name, String defaultValue, String doc) {}

  private static Optional<Key> key(String name) {
    return ArylConf.byKey(name)
        .map(k -> new Key(k.key(), k.defaultValue(), k.doc()))
        .or(() -> PoolConf.byKey(name).map(k -> new Key(k.key(), k.defaultValue(), k.doc())));
  }

  @Test
  @DisplayName("every aryl.* property in any template is a key of ArylConf or PoolConf")
  void everyArylPropertyIsAnArylConfKey() {
    assertThat(arylProperties()).isNotEmpty();
    assertThat(arylProperties())
        .allSatisfy(
            p ->
                assertThat(key(p.name()))
                    .as("%s is not a key of ArylConf or PoolConf", p)
                    .isPresent());
  }

  @Test
  @DisplayName(
      "every aryl.* property carries ArylConf's default, as written and as Hadoop reads it")
  void everyArylPropertyCarriesTheDefault() {
    for (String file : Templates.FILES) {
      Configuration conf = Templates.load(file);
      for (Templates.Property p : Templates.properties(file)) {
        if (!p.name().startsWith("aryl.")) {
          continue;
        }
        String defaultValue = key(p.name()).orElseThrow().defaultValue();
        assertThat(p.value()).as("value written for %s", p).isEqualTo(defaultValue);
        if (defaultValue.isEmpty()) {
          // Hadoop drops a property whose value is empty; the scheduler then falls back to the
          // (empty) default.
          assertThat(conf.get(p.name())).as("value Hadoop reads for %s", p).isNull();
        } else {
          assertThat(conf.get(p.name())).as("value Hadoop reads for %s", p).isEqualTo(defaultValue);
        }
      }
    }
  }

  @Test
  @DisplayName(
      "yarn-site.xml lists every ArylConf and PoolConf key, and none PoolConf says was renamed")
  void yarnSiteListsEveryKey() {
    List<String> names =
        Templates.properties(Templates.YARN_SITE).stream().map(Templates.Property::name).toList();
    assertThat(names)
        .containsAll(ArylConf.keys())
        .containsAll(PoolConf.keys())
        .doesNotContainAnyElementsOf(PoolConf.RENAMED.keySet());
  }

  @Test
  @DisplayName(
      "the comment before each aryl.* property begins with the code's own description of it")
  void commentsAreTheEnumDocs() {
    assertThat(arylProperties())
        .allSatisfy(
            p ->
                assertThat(p.comment())
                    .as("comment before %s", p)
                    .startsWith(Templates.normalize(key(p.name()).orElseThrow().doc())));
  }

  @Test
  @DisplayName(
      "every aryl.* key is under ArylConf.PREFIX or PoolConf.PREFIX, so start-up does not refuse it")
  void everyArylPropertyHasThePrefix() {
    assertThat(arylProperties())
        .extracting(Templates.Property::name)
        .allSatisfy(
            name ->
                assertThat(name)
                    .matches(
                        n -> n.startsWith(ArylConf.PREFIX) || n.startsWith(PoolConf.PREFIX),
                        "starts with " + ArylConf.PREFIX + " or " + PoolConf.PREFIX));
  }
}
