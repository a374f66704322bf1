package io.aryl.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.dist.Distribution.ListedJar;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an operator finds in the unpacked tarball, and where. */
@DisplayName("the tarball's layout")
class DistributionLayoutTest {

  @TempDir static Path unpacked;
  private static Path top;

  @BeforeAll
  static void unpack() throws Exception {
    top = Distribution.unpack(unpacked);
  }

  @Test
  @DisplayName("share/aryl/rm holds exactly the scheduler's jar, aryl-api and aryl-core")
  void resourceManagerJars() {
    String version = Distribution.version();
    assertThat(Distribution.jarsIn(top.resolve("share/aryl/rm")))
        .map(jar -> jar.getFileName().toString())
        .containsExactlyInAnyOrder(
            "aryl-yarn-scheduler-" + version + ".jar",
            "aryl-api-" + version + ".jar",
            "aryl-core-" + version + ".jar");
  }

  @Test
  @DisplayName("share/aryl/am holds the aryl-am jar, runnable by `yarn jar`")
  void amJar() throws Exception {
    List<Path> jars = Distribution.jarsIn(top.resolve("share/aryl/am"));
    assertThat(jars)
        .map(jar -> jar.getFileName().toString())
        .containsExactly("aryl-am-" + Distribution.version() + ".jar");
    try (java.util.jar.JarFile jar = new java.util.jar.JarFile(jars.get(0).toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo("io.aryl.am.Main");
    }
  }

  @Test
  @DisplayName(
      "share/aryl/serve holds the aryl-serve jar, runnable by `yarn jar`, with the replica it serves by default")
  void serveJar() throws Exception {
    List<Path> jars = Distribution.jarsIn(top.resolve("share/aryl/serve"));
    assertThat(jars)
        .map(jar -> jar.getFileName().toString())
        .containsExactly("aryl-serve-" + Distribution.version() + ".jar");
    try (java.util.jar.JarFile jar = new java.util.jar.JarFile(jars.get(0).toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo("io.aryl.serve.Main");
      assertThat(jar.stream().map(java.util.jar.JarEntry::getName))
          .as("entries of %s", jars.get(0).getFileName())
          .anyMatch(name -> name.endsWith("serve.py"));
    }
  }

  @Test
  @DisplayName("bin/aryl-labels and bin/aryl-admin are executable POSIX shell scripts")
  void scripts() throws Exception {
    for (String script : List.of("aryl-labels", "aryl-admin")) {
      Path file = top.resolve("bin").resolve(script);
      assertThat(Files.isExecutable(file)).as(script + " executable").isTrue();
      assertThat(Files.readAllLines(file, StandardCharsets.UTF_8).get(0)).isEqualTo("#!/bin/sh");
    }
  }

  @Test
  @DisplayName("etc/aryl holds every configuration template and the Grafana dashboard, unchanged")
  void templates() throws Exception {
    Path source = Path.of(System.getProperty("aryl.dist.templates"));
    List<Path> files;
    try (Stream<Path> walk = Files.walk(source)) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    assertThat(files).extracting(f -> f.getFileName().toString()).contains("grafana-aryl.json");
    for (Path file : files) {
      Path copy = top.resolve("etc/aryl").resolve(source.relativize(file).toString());
      assertThat(copy).as(copy.toString()).exists().hasSameBinaryContentAs(file);
      if (file.toString().endsWith(".sh")) {
        assertThat(Files.isExecutable(copy)).as(copy + " executable").isTrue();
      }
    }
  }

  @Test
  @DisplayName("README (the four install steps, this version), LICENSE and NOTICE are at the top")
  void readmeAndLicenses() throws Exception {
    String readme = Files.readString(top.resolve("README"), StandardCharsets.UTF_8);
    assertThat(readme)
        .contains("aryl-" + Distribution.version() + "-bin.tar.gz")
        .contains("1. Unpack", "2. Copy", "3. Configure", "4. Start")
        .doesNotContain("${");
    assertThat(top.resolve("LICENSE")).isNotEmptyFile();
    assertThat(top.resolve("NOTICE")).isNotEmptyFile();
  }

  @Test
  @DisplayName("every bundled third-party artifact has its license in licenses/ and in NOTICE")
  void thirdPartyLicenses() throws Exception {
    String notice = Files.readString(top.resolve("NOTICE"), StandardCharsets.UTF_8);
    List<ListedJar> thirdParty =
        Distribution.bundledArtifacts().stream()
            .filter(a -> !a.groupId().equals("io.aryl"))
            .toList();
    assertThat(thirdParty).isNotEmpty();
    for (ListedJar artifact : thirdParty) {
      assertThat(top.resolve("licenses").resolve(artifact.artifactId() + "-LICENSE.txt"))
          .as(artifact.coordinates())
          .isNotEmptyFile();
      assertThat(notice).as("NOTICE").contains(artifact.coordinates());
    }
  }
}
