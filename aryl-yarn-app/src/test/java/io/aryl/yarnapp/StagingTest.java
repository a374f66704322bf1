package io.aryl.yarnapp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Staging: an application's files on the default file system, as containers get them")
class StagingTest {
  private static final ApplicationId APP = ApplicationId.newInstance(1764432000000L, 3);

  @TempDir Path tmp;

  private Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "file:///");
    conf.set("test.staging", tmp.resolve("root").toString());
    return conf;
  }

  @Test
  @DisplayName("one directory per application under the configured root; deleted whole")
  void directoryPerApplication() throws Exception {
    Staging staging = Staging.create(conf(), "test.staging", ".unused", APP);
    Path dir = tmp.resolve("root").resolve("application_1764432000000_0003");
    assertThat(staging.dir().toUri().getScheme()).isEqualTo("file");
    assertThat(dir).isDirectory();
    staging.write("a.sh", new byte[] {1});
    staging.delete();
    assertThat(dir).doesNotExist();
  }

  @Test
  @DisplayName(
      "written and copied files carry their URI, size and time, and localise under their name")
  void stagedFiles() throws Exception {
    Staging staging = Staging.create(conf(), "test.staging", ".unused", APP);
    Path local = Files.writeString(tmp.resolve("train.py"), "print(1)\n");
    StagedFile script = staging.write("run.sh", "#!/bin/bash\n".getBytes(StandardCharsets.UTF_8));
    StagedFile copied = staging.copy(local.toFile());

    assertThat(script.name()).isEqualTo("run.sh");
    assertThat(script.size()).isEqualTo(12);
    assertThat(script.uri())
        .startsWith("file:/")
        .endsWith("/application_1764432000000_0003/run.sh");
    assertThat(copied.name()).isEqualTo("train.py");
    assertThat(copied.size()).isEqualTo(9);
    assertThat(Path.of(java.net.URI.create(copied.uri()))).hasContent("print(1)");

    Map<String, LocalResource> resources = StagedFile.localResources(List.of(script, copied));
    assertThat(resources).containsOnlyKeys("run.sh", "train.py");
    LocalResource r = resources.get("train.py");
    assertThat(r.getSize()).isEqualTo(copied.size());
    assertThat(r.getTimestamp()).isEqualTo(copied.timestamp());
    assertThat(r.getType()).isEqualTo(LocalResourceType.FILE);
    assertThat(r.getVisibility()).isEqualTo(LocalResourceVisibility.APPLICATION);
    assertThat(r.getResource().getFile()).endsWith("/train.py");
  }
}
