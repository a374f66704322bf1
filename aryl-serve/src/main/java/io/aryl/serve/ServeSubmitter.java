package io.aryl.serve;

import io.aryl.serve.am.ServeAppMaster;
import io.aryl.yarnapp.AmLaunch;
import io.aryl.yarnapp.RefusedSubmission;
import io.aryl.yarnapp.StagedFile;
import io.aryl.yarnapp.Staging;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
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

    Staging staging = Staging.create(conf, ServeKeys.STAGING_DIR, ".aryl/serve-staging", id);
    List<StagedFile> replicaFiles = new ArrayList<>();
    replicaFiles.add(
        staging.write(
            ServeKeys.REPLICA_SCRIPT,
            ("#!/bin/bash\n" + spec.command() + "\n").getBytes(StandardCharsets.UTF_8)));
    if (defaultReplica) {
      try (InputStream in =
          ServeAppMaster.class.getResourceAsStream(ServeKeys.DEFAULT_REPLICA_FILE)) {
        replicaFiles.add(staging.write(ServeKeys.DEFAULT_REPLICA_FILE, in.readAllBytes()));
      }
    }
    ServeSpec staged = spec.withStaging(replicaFiles, staging.dir().toString());

    AmLaunch am =
        new AmLaunch(conf, ServeAppMaster.class, ServeKeys.AM_JAR_FILE)
            .file(ServeKeys.SPEC_FILE, staging.writeResource(ServeKeys.SPEC_FILE, staged::write))
            .stageCode(staging, ServeKeys.AM_JAR, "aryl-serve");

    ctx.setApplicationName(spec.name());
    ctx.setQueue(spec.queue());
    ctx.setApplicationType(ServeKeys.APPLICATION_TYPE);
    // A new attempt starts its replicas afresh: it does not adopt the previous attempt's.
    ctx.setKeepContainersAcrossApplicationAttempts(false);
    ctx.setMaxAppAttempts(2);
    // The AM goes to the default partition unless configured otherwise (as aryl-am's): never on a
    // node that may be lent. The replicas ask for their label by name (spec.nodeLabel()).
    am.into(ctx, spec.amMemoryMb(), conf.getTrimmed(ServeKeys.AM_NODE_LABEL, ""), Map.of());
    try {
      yarn.submitApplication(ctx);
    } catch (YarnException e) {
      throw RefusedSubmission.of(yarn, id, e, staging);
    } catch (IOException e) {
      staging.delete(); // no AM will run to delete it
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

  @Override
  public void close() throws IOException {
    yarn.close();
  }
}
