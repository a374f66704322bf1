package io.aryl.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the real-daemon test reads the deploying page's command blocks. */
@DisplayName("the deploying page's marked command blocks")
class DeployingPageTest {

  @TempDir Path dir;

  private Path page(String text) throws Exception {
    Path page = dir.resolve("deploying.md");
    Files.writeString(page, text, StandardCharsets.UTF_8);
    return page;
  }

  @Test
  @DisplayName("a marked sh block is read as written, its list indentation removed; others not")
  void readsMarkedBlocks() throws Exception {
    DeployingPage page =
        DeployingPage.read(
            page(
                """
                # Deploying
                ```sh
                not marked
                ```
                <!-- ArylDaemonsIT: first -->
                ```sh
                tar xzf aryl-<version>-bin.tar.gz -C /opt
                ```
                1. **Check.**

                   <!-- ArylDaemonsIT: check -->
                   ```sh
                   yarn node -list   # a comment
                     indented more
                   ```
                """));

    assertThat(page.marked()).containsExactly("first", "check");
    Map<String, String> values = new LinkedHashMap<>();
    values.put("aryl-<version>-bin.tar.gz", "/tmp/aryl-1.0-bin.tar.gz");
    values.put("/opt", "/tmp/run");
    assertThat(page.script("first", values))
        .isEqualTo("tar xzf /tmp/aryl-1.0-bin.tar.gz -C /tmp/run\n");
    assertThat(page.notRun()).containsExactly("check");
    assertThat(page.script("check", Map.of()))
        .isEqualTo("yarn node -list   # a comment\n  indented more\n");
    assertThat(page.notRun()).isEmpty();
  }

  @Test
  @DisplayName("a placeholder the block no longer has fails, naming it and the block")
  void missingPlaceholderFails() throws Exception {
    DeployingPage page =
        DeployingPage.read(page("<!-- ArylDaemonsIT: run -->\n```sh\naryl-labels run\n```\n"));

    assertThatThrownBy(() -> page.script("run", Map.of("zk1:2181", "localhost:1")))
        .hasMessageContaining("the block 'run'")
        .hasMessageContaining("has no 'zk1:2181'");
    assertThatThrownBy(() -> page.script("gone", Map.of()))
        .hasMessageContaining("no block marked 'gone'")
        .hasMessageContaining("[run]");
  }

  @Test
  @DisplayName("a mark not followed by a sh block, or used twice, fails naming the line")
  void badMarksFail() throws Exception {
    Path noBlock = page("<!-- ArylDaemonsIT: lost -->\nsome text\n```sh\nls\n```\n");
    assertThatThrownBy(() -> DeployingPage.read(noBlock))
        .hasMessageContaining("line 1: the mark 'lost' is not followed by a ```sh block");

    Path twice =
        page(
            "<!-- ArylDaemonsIT: a -->\n```sh\nls\n```\n<!-- ArylDaemonsIT: a -->\n```sh\nls\n```\n");
    assertThatThrownBy(() -> DeployingPage.read(twice))
        .hasMessageContaining("the mark 'a' is there twice");
  }

  @Test
  @DisplayName(
      "the site's deploying page marks the install's blocks: unpack, label, controller, job, check")
  void theSitePageMarksTheInstall() throws Exception {
    DeployingPage page =
        DeployingPage.read(Path.of(Distribution.property("aryl.dist.deploying-page")));

    assertThat(page.marked())
        .containsExactly(
            "unpack",
            "rm-classpath",
            "labels-rmadmin",
            "labels-init",
            "controller",
            "controller-status",
            "smoke-job",
            "check");
  }
}
