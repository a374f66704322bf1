package io.aryl.serve;

import io.aryl.serve.am.ServeAppMaster;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ClassUtil;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.URL;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;

/**
 * Submits an inference service's ApplicationMaster: stages the replica script (and the default
 * replica, {@code serve.py}, when the command is the default), the spec and the jar, and submits
 * the AM to the service's queue. Also finds a running service's status URL, for the load generator.
 */
public final class ServeSubmitter implements AutoCloseable {
  private static final Set<YarnApplicationState> DONE =
      EnumSet.of(
          YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);

  private final Configuration conf;
  private final YarnClient yarn;

  public ServeSubmitter(Configuration conf) {
    this.conf = conf;
    this.yarn = YarnClient.createYarnClient();
    yarn.init(conf);
    yarn.start();
  }

  /**
   * The replica partition a queue's containers go to: its default label, or the default partition.
   */
  public String defaultLabel(String queue) throws IOException, YarnException {
    QueueInfo info = yarn.getQueueInfo(queue);
    if (info == null) {
      throw new IllegalArgumentException("--queue: unknown queue '" + queue + "'");
    }
    String label = info.getDefaultNodeLabelExpression();
    return label == null ? "" : label.trim();
  }

  /**
   * Stages the service's files and submits its ApplicationMaster.
   *
   * @param spec the service, its files not staged yet
   * @param defaultReplica whether the command runs the default replica ({@code serve.py}, staged)
   */
  public ApplicationId submit(ServeSpec spec, boolean defaultReplica)
      throws IOException, YarnException {
    YarnClientApplication app = yarn.createApplication();
    ApplicationSubmissionContext ctx = app.getApplicationSubmissionContext();
    ApplicationId id = ctx.getApplicationId();

    FileSystem fs = FileSystem.get(conf);
    String root =
        conf.get(
            ServeKeys.STAGING_DIR,
            new Path(fs.getHomeDirectory(), ".aryl/serve-staging").toString());
    Path staging = fs.makeQualified(new Path(root, id.toString()));
    fs.mkdirs(staging);

    List<ServeSpec.StagedFile> replicaFiles = new ArrayList<>();
    replicaFiles.add(
        stage(
            fs,
            staging,
            ServeKeys.REPLICA_SCRIPT,
            ("#!/bin/bash\n" + spec.command() + "\n").getBytes(StandardCharsets.UTF_8)));
    if (defaultReplica) {
      try (InputStream in =
          ServeAppMaster.class.getResourceAsStream(ServeKeys.DEFAULT_REPLICA_FILE)) {
        replicaFiles.add(stage(fs, staging, ServeKeys.DEFAULT_REPLICA_FILE, in.readAllBytes()));
      }
    }
    ServeSpec staged = spec.withStaging(replicaFiles, staging.toString());

    Map<String, LocalResource> amFiles = new HashMap<>();
    Path specFile = new Path(staging, ServeKeys.SPEC_FILE);
    try (OutputStream out = fs.create(specFile, true)) {
      staged.write(out);
    }
    amFiles.put(ServeKeys.SPEC_FILE, resource(fs, specFile));
    String jar = conf.get(ServeKeys.AM_JAR, ClassUtil.findContainingJar(ServeAppMaster.class));
    boolean mini = conf.getBoolean(YarnConfiguration.IS_MINI_YARN_CLUSTER, false);
    if (jar != null) {
      Path dst = new Path(staging, ServeKeys.AM_JAR_FILE);
      fs.copyFromLocalFile(false, true, new Path(new File(jar).getAbsolutePath()), dst);
      amFiles.put(ServeKeys.AM_JAR_FILE, resource(fs, dst));
    } else if (!mini) {
      throw new IllegalStateException(
          "cannot find the aryl-serve jar to ship: run from it (yarn jar) or set "
              + ServeKeys.AM_JAR);
    }
    if (mini) {
      // A MiniYARNCluster's NMs have no Hadoop configuration of their own: give the AM the
      // client's (the RM's address).
      Path dst = new Path(staging, ServeKeys.CLIENT_CONF_FILE);
      try (OutputStream out = fs.create(dst, true)) {
        conf.writeXml(out);
      }
      amFiles.put(ServeKeys.CLIENT_CONF_FILE, resource(fs, dst));
    }

    ctx.setApplicationName(spec.name());
    ctx.setQueue(spec.queue());
    ctx.setApplicationType(ServeKeys.APPLICATION_TYPE);
    // A new attempt starts its replicas afresh: it does not adopt the previous attempt's.
    ctx.setKeepContainersAcrossApplicationAttempts(false);
    ctx.setMaxAppAttempts(2);
    Resource amResource = Resource.newInstance(spec.amMemoryMb(), 1);
    ResourceRequest amRequest =
        ResourceRequest.newInstance(Priority.newInstance(0), ResourceRequest.ANY, amResource, 1);
    // The AM goes to the default partition unless configured otherwise (as aryl-am's): never on a
    // node that may be lent. The replicas ask for their label by name (spec.nodeLabel()).
    String amLabel = conf.getTrimmed(ServeKeys.AM_NODE_LABEL, "");
    amRequest.setNodeLabelExpression(amLabel);
    ctx.setNodeLabelExpression(amLabel);
    ctx.setAMContainerResourceRequests(List.of(amRequest));
    ctx.setResource(amResource);

    Map<String, String> env = new HashMap<>();
    env.put(Environment.CLASSPATH.name(), amClasspath(mini));
    String log = ApplicationConstants.LOG_DIR_EXPANSION_VAR;
    String command =
        Environment.JAVA_HOME.$$()
            + "/bin/java -Xmx"
            + Math.max(64, spec.amMemoryMb() * 3 / 4)
            + "m "
            + ServeAppMaster.class.getName()
            + " 1>"
            + log
            + "/AppMaster.stdout 2>"
            + log
            + "/AppMaster.stderr";
    ctx.setAMContainerSpec(
        ContainerLaunchContext.newInstance(amFiles, env, List.of(command), null, null, null));
    try {
      yarn.submitApplication(ctx);
    } catch (YarnException | IOException e) {
      fs.delete(staging, true); // no AM will run to delete it
      throw e;
    }
    return id;
  }

  /**
   * Waits until the service's AM has registered (RUNNING), printing state changes; false if the
   * application ended first.
   */
  public boolean awaitRunning(ApplicationId id, PrintStream out)
      throws IOException, YarnException, InterruptedException {
    String last = "";
    while (true) {
      ApplicationReport r = yarn.getApplicationReport(id);
      String now = r.getYarnApplicationState().name();
      if (!now.equals(last)) {
        out.println(id + " " + now);
        last = now;
      }
      if (r.getYarnApplicationState() == YarnApplicationState.RUNNING) {
        out.println(id + " status " + statusUrl(r));
        return true;
      }
      if (DONE.contains(r.getYarnApplicationState())) {
        out.println(
            id + " final status " + r.getFinalApplicationStatus() + ": " + r.getDiagnostics());
        return false;
      }
      Thread.sleep(500);
    }
  }

  /**
   * A running service's status URL: its AM's own address (the original tracking URL), which the
   * load generator polls every second without going through the RM's web proxy.
   */
  public String statusUrl(ApplicationId id) throws IOException, YarnException {
    ApplicationReport r = yarn.getApplicationReport(id);
    if (r.getYarnApplicationState() != YarnApplicationState.RUNNING) {
      throw new IllegalStateException(
          id + " is " + r.getYarnApplicationState() + ", not RUNNING: it has no status to read");
    }
    return statusUrl(r);
  }

  private static String statusUrl(ApplicationReport r) {
    String base = r.getOriginalTrackingUrl();
    if (base == null || base.isBlank() || base.equals("N/A")) {
      throw new IllegalStateException(r.getApplicationId() + " has no tracking URL yet");
    }
    if (!base.contains("://")) {
      base = "http://" + base;
    }
    base = base.replaceAll("/+$", "");
    return base + io.aryl.api.serve.ServeStatus.PATH;
  }

  public void kill(ApplicationId id) throws IOException, YarnException {
    yarn.killApplication(id);
  }

  private String amClasspath(boolean mini) {
    String sep = ApplicationConstants.CLASS_PATH_SEPARATOR;
    StringBuilder cp =
        new StringBuilder(Environment.PWD.$$())
            .append(sep)
            .append(Environment.PWD.$$())
            .append('/')
            .append(ServeKeys.AM_JAR_FILE);
    for (String entry :
        conf.getStrings(
            YarnConfiguration.YARN_APPLICATION_CLASSPATH,
            YarnConfiguration.DEFAULT_YARN_CROSS_PLATFORM_APPLICATION_CLASSPATH)) {
      cp.append(sep).append(entry.trim());
    }
    if (mini) {
      // As DistributedShell does: a MiniYARNCluster's NMs have no Hadoop install, the test JVM's
      // class path is it.
      cp.append(sep).append(System.getProperty("java.class.path").replace(File.pathSeparator, sep));
    }
    return cp.toString();
  }

  private static ServeSpec.StagedFile stage(FileSystem fs, Path dir, String name, byte[] content)
      throws IOException {
    Path p = new Path(dir, name);
    try (OutputStream out = fs.create(p, true)) {
      out.write(content);
    }
    FileStatus s = fs.getFileStatus(p);
    return new ServeSpec.StagedFile(
        name, fs.makeQualified(p).toUri().toString(), s.getLen(), s.getModificationTime());
  }

  private static LocalResource resource(FileSystem fs, Path p) throws IOException {
    FileStatus s = fs.getFileStatus(p);
    return LocalResource.newInstance(
        URL.fromPath(fs.makeQualified(p)),
        LocalResourceType.FILE,
        LocalResourceVisibility.APPLICATION,
        s.getLen(),
        s.getModificationTime());
  }

  @Override
  public void close() throws IOException {
    yarn.close();
  }
}
