package io.aryl.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration page against the code: every key of PoolConf, ArylConf, LabelsConf and AmKeys,
 * with its default (and description), and no key the code does not have, on this page or any other
 * (but the keys PoolConf says were renamed, which pages may name as such).
 *
 * <p>The four classes are compiled here from their sources, so this module needs no other module's
 * artifact (the site goal resolves test dependencies, and `mvn -pl site site` must work without the
 * others installed). They use nothing but java.util; should one ever import more, this compile says
 * so.
 */
class ConfigurationPageTest {
  private static final String POOLS = "aryl-api/src/main/java/io/aryl/api/conf/PoolConf.java";
  private static final String SCHEDULER =
      "aryl-yarn-scheduler/src/main/java/io/aryl/yarn/conf/ArylConf.java";
  private static final String LABELS = "node-labels/src/main/java/io/aryl/labels/LabelsConf.java";
  private static final String AM = "aryl-am/src/main/java/io/aryl/am/AmKeys.java";

  /** A key as the code defines it; default and doc are null where the code does not state them. */
  record Key(String name, String defaultValue, String doc) {}

  private static final Pattern ROW = Pattern.compile("^\\| `(aryl\\.[^`]+)` \\|.*$");
  private static final Pattern MENTION =
      Pattern.compile("aryl\\.(?:pools|scheduler|labels|am)\\.[a-z0-9][a-z0-9.-]*[a-z0-9]");

  @TempDir static Path classes;
  static List<Key> poolKeys;
  static Set<String> renamedKeys;

  /** Keys that are gone, refused at start with why: the pages tell operators to remove them. */
  static Set<String> goneKeys;

  static List<Key> schedulerKeys;
  static List<Key> labelsKeys;
  static List<Key> amKeys;
  static Map<String, String> rows;

  @BeforeAll
  static void compileKeyClasses() throws Exception {
    Path root = SiteSources.root();
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertThat(javac).as("a JDK's compiler (the tests need a JDK, not a JRE)").isNotNull();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, null)) {
      Iterable<? extends JavaFileObject> units =
          files.getJavaFileObjects(
              root.resolve(POOLS), root.resolve(SCHEDULER), root.resolve(LABELS), root.resolve(AM));
      boolean ok =
          javac
              .getTask(
                  null,
                  files,
                  diagnostics,
                  List.of("-d", classes.toString(), "-proc:none", "-implicit:none"),
                  null,
                  units)
              .call();
      if (!ok) {
        fail("could not compile the key classes on their own: %s", diagnostics.getDiagnostics());
      }
    }
    try (URLClassLoader loader =
        new URLClassLoader(new java.net.URL[] {classes.toUri().toURL()}, null)) {
      Class<?> pools = loader.loadClass("io.aryl.api.conf.PoolConf");
      poolKeys = enumKeys(pools);
      renamedKeys =
          new LinkedHashSet<>(
              ((Map<?, ?>) pools.getField("RENAMED").get(null))
                  .keySet().stream().map(String::valueOf).toList());
      schedulerKeys = enumKeys(loader.loadClass("io.aryl.yarn.conf.ArylConf"));
      Class<?> labels = loader.loadClass("io.aryl.labels.LabelsConf");
      labelsKeys = enumKeys(labels);
      goneKeys =
          new LinkedHashSet<>(
              ((Map<?, ?>) labels.getField("GONE").get(null))
                  .keySet().stream().map(String::valueOf).toList());
      amKeys = constantKeys(loader.loadClass("io.aryl.am.AmKeys"), "aryl.am.");
    }
    rows = new LinkedHashMap<>();
    for (String line : Files.readAllLines(SiteSources.markdownDir().resolve("configuration.md"))) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        assertThat(rows.put(m.group(1), line)).as("key %s listed twice", m.group(1)).isNull();
      }
    }
  }

  private static List<Key> enumKeys(Class<?> type) throws Exception {
    Method key = type.getMethod("key");
    Method def = type.getMethod("defaultValue");
    Method doc = type.getMethod("doc");
    List<Key> out = new ArrayList<>();
    for (Object c : type.getEnumConstants()) {
      out.add(new Key((String) key.invoke(c), (String) def.invoke(c), (String) doc.invoke(c)));
    }
    assertThat(out).as("keys of %s", type.getName()).isNotEmpty();
    return out;
  }

  /**
   * String constants whose value starts with the prefix; a constant NAME_DEFAULT beside NAME is its
   * default.
   */
  private static List<Key> constantKeys(Class<?> type, String prefix) throws Exception {
    List<Key> out = new ArrayList<>();
    for (Field f : type.getDeclaredFields()) {
      int mod = f.getModifiers();
      if (!Modifier.isStatic(mod) || f.getType() != String.class) {
        continue;
      }
      f.setAccessible(true);
      String value = (String) f.get(null);
      if (value == null || !value.startsWith(prefix)) {
        continue;
      }
      String def = null;
      try {
        Field d = type.getDeclaredField(f.getName() + "_DEFAULT");
        d.setAccessible(true);
        def = String.valueOf(d.get(null));
      } catch (NoSuchFieldException absent) {
        // documented by hand: the code computes it (e.g. a path under the user's home)
      }
      out.add(new Key(value, def, null));
    }
    assertThat(out).as("keys of %s", type.getName()).isNotEmpty();
    return out;
  }

  private static String expectedRow(Key k) {
    String def = k.defaultValue().isEmpty() ? "(empty)" : "`" + k.defaultValue() + "`";
    return "| `" + k.name() + "` | " + def + " | " + k.doc() + " |";
  }

  @Test
  @DisplayName(
      "every aryl.pools.* key of PoolConf is a row: key, default, description as in the code")
  void poolKeys() {
    assertThat(poolKeys)
        .extracting(Key::name)
        .contains("aryl.pools.inference.label", "aryl.pools.training.label");
    for (Key k : poolKeys) {
      assertThat(rows.get(k.name()))
          .as("row of %s in configuration.md", k.name())
          .isEqualTo(expectedRow(k));
    }
  }

  @Test
  @DisplayName("the keys LabelsConf says are gone are no row, and the page names each of them")
  void goneKeys() throws IOException {
    assertThat(goneKeys).isNotEmpty();
    String page = Files.readString(SiteSources.markdownDir().resolve("configuration.md"));
    for (String gone : goneKeys) {
      assertThat(rows).as("rows of configuration.md").doesNotContainKey(gone);
      assertThat(page).as("configuration.md names the gone %s", gone).contains("`" + gone + "`");
    }
  }

  @Test
  @DisplayName("the keys PoolConf says were renamed are no row, and the page names each of them")
  void renamedKeys() throws IOException {
    assertThat(renamedKeys).isNotEmpty();
    String page = Files.readString(SiteSources.markdownDir().resolve("configuration.md"));
    for (String old : renamedKeys) {
      assertThat(rows).as("rows of configuration.md").doesNotContainKey(old);
      assertThat(page).as("configuration.md names the renamed %s", old).contains("`" + old + "`");
    }
  }

  @Test
  @DisplayName(
      "every aryl.scheduler.* key of ArylConf is a row: key, default, description as in the code")
  void schedulerKeys() {
    for (Key k : schedulerKeys) {
      assertThat(rows.get(k.name()))
          .as("row of %s in configuration.md", k.name())
          .isEqualTo(expectedRow(k));
    }
  }

  @Test
  @DisplayName(
      "the deploying page's loan-controller knobs name hold, cooldown, GPUs per server, the status"
          + " port and its address, each with LabelsConf's default")
  void deployingPageKnobs() throws IOException {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (Key k : labelsKeys) {
      defaults.put(k.name(), k.defaultValue());
    }
    Map<String, String> knobs = new LinkedHashMap<>();
    for (String line : Files.readAllLines(SiteSources.markdownDir().resolve("deploying.md"))) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        String[] cells = line.split(" \\| ");
        assertThat(cells).as("cells of %s", line).hasSizeGreaterThanOrEqualTo(3);
        knobs.put(m.group(1), cells[1]);
      }
    }
    assertThat(knobs)
        .containsOnlyKeys(
            "aryl.labels.loan.hold-ms",
            "aryl.labels.loan.cooldown-ms",
            "aryl.labels.demand.yarn.gpus-per-server",
            "aryl.labels.http.port",
            "aryl.labels.http.host");
    knobs.forEach(
        (key, cell) ->
            assertThat(cell)
                .as("default of %s on deploying.md", key)
                .isEqualTo("`" + defaults.get(key) + "`"));
  }

  @Test
  @DisplayName(
      "every aryl.labels.* key of LabelsConf is a row: key, default, description as in the code")
  void labelsKeys() {
    for (Key k : labelsKeys) {
      assertThat(rows.get(k.name()))
          .as("row of %s in configuration.md", k.name())
          .isEqualTo(expectedRow(k));
    }
  }

  @Test
  @DisplayName("every aryl.am.* key of AmKeys is a row, with the default the code states")
  void amKeys() {
    assertThat(amKeys).extracting(Key::name).contains("aryl.am.settle-ms", "aryl.am.heartbeat-ms");
    for (Key k : amKeys) {
      String row = rows.get(k.name());
      assertThat(row).as("row of %s in configuration.md", k.name()).isNotNull();
      String[] cells = row.split(" \\| ");
      assertThat(cells).as("cells of %s", row).hasSizeGreaterThanOrEqualTo(3);
      if (k.defaultValue() != null) {
        assertThat(cells[1]).as("default of %s", k.name()).isEqualTo("`" + k.defaultValue() + "`");
      }
      assertThat(cells[2].replace(" |", "").trim()).as("description of %s", k.name()).isNotEmpty();
    }
  }

  @Test
  @DisplayName("the configuration page lists no key the code lacks")
  void noStaleRows() {
    Set<String> known = knownKeys();
    assertThat(rows.keySet())
        .as("keys in configuration.md")
        .isNotEmpty()
        .allSatisfy(k -> assertThat(known).as("keys in the code").contains(k));
    assertThat(rows).hasSize(known.size());
  }

  @Test
  @DisplayName(
      "no page mentions an aryl.pools/scheduler/labels/am key that does not exist, or was not renamed")
  void noStaleMentions() throws IOException {
    Set<String> known = knownKeys();
    Map<String, String> unknown = new LinkedHashMap<>();
    try (Stream<Path> pages = Files.list(SiteSources.markdownDir())) {
      for (Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
        Matcher m = MENTION.matcher(Files.readString(page));
        while (m.find()) {
          if (!known.contains(m.group())
              && !renamedKeys.contains(m.group())
              && !goneKeys.contains(m.group())) {
            unknown.put(m.group(), page.getFileName().toString());
          }
        }
      }
    }
    assertThat(unknown)
        .as("keys mentioned in the pages that the code does not define (key -> page)")
        .isEmpty();
  }

  private static Set<String> knownKeys() {
    Set<String> known = new LinkedHashSet<>();
    Stream.of(poolKeys, schedulerKeys, labelsKeys, amKeys)
        .flatMap(List::stream)
        .map(Key::name)
        .forEach(known::add);
    return known;
  }
}
