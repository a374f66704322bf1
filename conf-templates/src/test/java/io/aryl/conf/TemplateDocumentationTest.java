package io.aryl.conf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("Every template")
class TemplateDocumentationTest {

  static Stream<String> templates() {
    return Templates.FILES.stream();
  }

  /**
   * The files an operator installs together: a new cluster's, and those for a cluster that already
   * runs.
   */
  static Stream<Arguments> templateSets() {
    return Stream.of(
        Arguments.of("new cluster", Templates.ALL),
        Arguments.of("existing cluster", Templates.EXISTING_CLUSTER));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("templates")
  @DisplayName(
      "is on the classpath under aryl-conf/ and Hadoop reads each property with the value written")
  void loads(String file) {
    Configuration conf = Templates.load(file);
    assertThat(conf.size()).isPositive();
    assertThat(Templates.properties(file))
        .allSatisfy(
            p -> {
              if (p.rawValue().isEmpty()) {
                // Hadoop drops empty values: such a property reads as unset, i.e. as its default
                assertThat(conf.get(p.name())).as("value Hadoop reads for %s", p).isNull();
              } else if (p.value().isEmpty()) {
                // a value of spaces is kept as written (the Capacity Scheduler reads " " as "no
                // node label")
                assertThat(conf.get(p.name()))
                    .as("value Hadoop reads for %s", p)
                    .isEqualTo(p.rawValue());
              } else {
                assertThat(conf.get(p.name()))
                    .as("value Hadoop reads for %s", p)
                    .isEqualTo(p.value());
              }
            });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("templates")
  @DisplayName("has a comment immediately before every property")
  void everyPropertyIsCommented(String file) {
    List<Templates.Property> properties = Templates.properties(file);
    assertThat(properties).isNotEmpty();
    assertThat(properties)
        .allSatisfy(
            p -> assertThat(p.comment()).as("comment immediately before %s", p).isNotBlank());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("templates")
  @DisplayName("gives every property a name and a value element")
  void everyPropertyHasNameAndValue(String file) {
    assertThat(Templates.properties(file))
        .allSatisfy(
            p -> {
              assertThat(p.name()).as("name in %s", file).isNotBlank();
              assertThat(p.value()).as("value of %s", p).isNotNull();
            });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("templateSets")
  @DisplayName(
      "sets no property twice, within a template or across the templates installed together")
  void noPropertySetTwice(String set, List<String> files) {
    Map<String, Templates.Property> seen = new HashMap<>();
    assertThat(Templates.allProperties(files))
        .allSatisfy(
            p ->
                assertThat(seen.putIfAbsent(p.name(), p))
                    .as("%s also set in %s", p, seen.get(p.name()))
                    .isNull());
  }
}
