package io.aryl.yarnapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.util.Records;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("AmLaunch: the ApplicationMaster's container as a client submits it")
class AmLaunchTest {
  private static final String SEP = ApplicationConstants.CLASS_PATH_SEPARATOR;
  private static final ApplicationId APP = ApplicationId.newInstance(1764432000000L, 7);

  @TempDir Path tmp;

  private Configuration conf(boolean miniCluster) {
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "file:///");
    conf.set("test.staging", tmp.resolve("staging").toString());
    conf.setBoolean(YarnConfiguration.IS_MINI_YARN_CLUSTER, miniCluster);
    conf.set(YarnConfiguration.YARN_APPLICATION_CLASSPATH, "/hadoop/conf, /hadoop/lib/* ");
    return conf;
  }

  @Test
  @DisplayName(
      "the class path is the working directory, the shipped jar, then Hadoop's application class"
          + " path")
  void classpath() {
    AmLaunch am = new AmLaunch(conf(false), AmLaunchTest.class, "aryl-x.jar");
    assertThat(am.classpath())
        .isEqualTo(
            "{{PWD}}" + SEP + "{{PWD}}/aryl-x.jar" + SEP + "/hadoop/conf" + SEP + "/hadoop/lib/*");
  }

  @Test
  @DisplayName("on a MiniYARNCluster the client JVM's class path follows (its NMs have no Hadoop)")
  void miniClusterClasspath() {
    String own = System.getProperty("java.class.path").replace(File.pathSeparator, SEP);
    assertThat(new AmLaunch(conf(true), AmLaunchTest.class, "aryl-x.jar").classpath())
        .endsWith(SEP + "/hadoop/lib/*" + SEP + own);
  }

  @Test
  @DisplayName(
      "the AM's JVM gets 3/4 of its container as heap, 64 MB at least, logs in its log dir")
  void command() {
    AmLaunch am = new AmLaunch(conf(false), AmLaunchTest.class, "aryl-x.jar");
    assertThat(am.command(512))
        .isEqualTo(
            "{{JAVA_HOME}}/bin/java -Xmx384m io.aryl.yarnapp.AmLaunchTest"
                + " 1><LOG_DIR>/AppMaster.stdout 2><LOG_DIR>/AppMaster.stderr");
    assertThat(am.command(64)).contains(" -Xmx64m ");
  }

  @Test
  @DisplayName("the jar the key names is shipped under the AM's jar name, with the files given")
  void shipsTheNamedJar() throws Exception {
    Path jar = Files.writeString(tmp.resolve("built.jar"), "jar bytes");
    Configuration conf = conf(false);
    conf.set("test.jar", jar.toString());
    Staging staging = Staging.create(conf, "test.staging", "unused", APP);
    ApplicationSubmissionContext ctx = Records.newRecord(ApplicationSubmissionContext.class);
    new AmLaunch(conf, AmLaunchTest.class, "aryl-x.jar")
        .file("spec.json", staging.writeResource("spec.json", out -> out.write('{')))
        .stageCode(staging, "test.jar", "aryl-x")
        .into(ctx, 512, "", Map.of("ARYL_X", "y"));

    ContainerLaunchContext launch = ctx.getAMContainerSpec();
    assertThat(launch.getLocalResources()).containsOnlyKeys("aryl-x.jar", "spec.json");
    assertThat(launch.getLocalResources().get("aryl-x.jar").getSize()).isEqualTo(9);
    assertThat(
            Files.readString(tmp.resolve("staging").resolve(APP.toString()).resolve("aryl-x.jar")))
        .isEqualTo("jar bytes");
    assertThat(launch.getEnvironment())
        .containsEntry("ARYL_X", "y")
        .containsKey(ApplicationConstants.Environment.CLASSPATH.name());
    assertThat(launch.getCommands()).hasSize(1);
  }

  @Test
  @DisplayName("the AM asks for its memory and a vcore in the partition given, the app's too")
  void placesTheAm() throws Exception {
    Configuration conf = conf(true);
    Staging staging = Staging.create(conf, "test.staging", "unused", APP);
    ApplicationSubmissionContext ctx = Records.newRecord(ApplicationSubmissionContext.class);
    new AmLaunch(conf, AmLaunchTest.class, "aryl-x.jar")
        .stageCode(staging, "test.jar", "aryl-x")
        .into(ctx, 768, "training", Map.of());

    ResourceRequest request = ctx.getAMContainerResourceRequests().get(0);
    assertThat(request.getCapability().getMemorySize()).isEqualTo(768);
    assertThat(request.getCapability().getVirtualCores()).isEqualTo(1);
    assertThat(request.getResourceName()).isEqualTo(ResourceRequest.ANY);
    assertThat(request.getNodeLabelExpression()).isEqualTo("training");
    assertThat(ctx.getNodeLabelExpression()).isEqualTo("training");
    // A test runs from classes, not a jar: on a MiniYARNCluster only the client's configuration
    // is shipped.
    assertThat(ctx.getAMContainerSpec().getLocalResources())
        .containsOnlyKeys(AmLaunch.CLIENT_CONF_FILE);
  }

  @Test
  @DisplayName("outside a MiniYARNCluster, a client with no jar to ship is refused, naming the key")
  void noJarRefused() throws Exception {
    Configuration conf = conf(false);
    Staging staging = Staging.create(conf, "test.staging", "unused", APP);
    AmLaunch am = new AmLaunch(conf, AmLaunchTest.class, "aryl-x.jar");
    assertThatThrownBy(() -> am.stageCode(staging, "test.jar", "aryl-x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("cannot find the aryl-x jar to ship: run from it (yarn jar) or set test.jar");
  }
}
