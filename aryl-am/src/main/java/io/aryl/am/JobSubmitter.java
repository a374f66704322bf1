package io.aryl.am;

import io.aryl.yarnapp.AmLaunch;
import io.aryl.yarnapp.RefusedSubmission;
import io.aryl.yarnapp.StagedFile;
import io.aryl.yarnapp.Staging;
import java.io.File;
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
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.exceptions.YarnException;

/** Submits Aryl jobs to the RM, follows them, lists and kills them. */
public final class JobSubmitter implements AutoCloseable {
  private static final String ROOT_QUEUE = "root";
  private static final Set<YarnApplicationState> DONE =
      EnumSet.of(
          YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);

  private final Configuration conf;
  private final YarnClient yarn;

  public JobSubmitter(Configuration conf) {
    this.conf = conf;
    this.yarn = YarnClient.createYarnClient();
    yarn.init(conf);
    yarn.start();
  }

  /**
   * A new application id and the largest container the ResourceManager allocates: what a submission
   * starts from. Nothing is submitted yet; an id left unused is simply never seen by the
   * ResourceManager's application list.
   */
  public NewJob newJob() throws IOException, YarnException {
    YarnClientApplication app = yarn.createApplication();
    return new NewJob(app, gpus(app.getNewApplicationResponse().getMaximumResourceCapability()));
  }

  /** A created application, not submitted yet. */
  public static final class NewJob {
    private final YarnClientApplication app;
    private final long maxContainerGpus;

    private NewJob(YarnClientApplication app, long maxContainerGpus) {
      this.app = app;
      this.maxContainerGpus = maxContainerGpus;
    }

    /** GPUs of the largest container; -1 when this client does not know the GPU resource type. */
    public long maxContainerGpus() {
      return maxContainerGpus;
    }
  }

  /** What {@link SubmissionChecks} checks a job against: the queue tree and the running nodes. */
  SubmissionChecks.ClusterFacts facts(NewJob job) throws IOException, YarnException {
    List<QueueInfo> all = yarn.getAllQueues();
    List<QueueCheck.Queue> queues = new ArrayList<>();
    List<String> top = new ArrayList<>();
    for (QueueInfo q : all) {
      String path = pathOf(q);
      if (path.startsWith(ROOT_QUEUE + ".") && path.indexOf('.', ROOT_QUEUE.length() + 1) < 0) {
        top.add(path);
      }
      List<String> children = new ArrayList<>();
      for (QueueInfo c : q.getChildQueues()) {
        children.add(pathOf(c));
      }
      queues.add(new QueueCheck.Queue(path, children, q.getDefaultNodeLabelExpression()));
    }
    // getAllQueues lists root's descendants only; root is a parent queue, never a place for jobs.
    queues.add(new QueueCheck.Queue(ROOT_QUEUE, top, ""));
    List<GangFitCheck.Node> nodes = new ArrayList<>();
    for (NodeReport n : yarn.getNodeReports(NodeState.RUNNING)) {
      Set<String> labels = n.getNodeLabels();
      nodes.add(
          new GangFitCheck.Node(
              labels == null || labels.isEmpty() ? "" : labels.iterator().next(),
              Math.max(0, gpus(n.getCapability()))));
    }
    return new SubmissionChecks.ClusterFacts(queues, job.maxContainerGpus(), nodes);
  }

  private static String pathOf(QueueInfo q) {
    String path = q.getQueuePath();
    return path == null || path.isEmpty() ? q.getQueueName() : path;
  }

  /** {@code yarn.io/gpu} of a resource; -1 when this client does not know the GPU resource type. */
  private static long gpus(Resource r) {
    if (r != null) {
      for (ResourceInformation ri : r.getResources()) {
        if (AmKeys.GPU.equals(ri.getName())) {
          return ri.getValue();
        }
      }
    }
    return -1;
  }

  /**
   * Stages the job's files and submits its ApplicationMaster under a new application id, in the
   * partition {@link AmKeys#AM_NODE_LABEL} names ({@link AmPartition}).
   *
   * @throws IllegalArgumentException when no NodeManager runs in that partition
   */
  public ApplicationId submit(JobSpec spec, List<File> files) throws IOException, YarnException {
    NewJob job = newJob();
    return submit(job, spec, files, amNodeLabel(null, spec, facts(job)));
  }

  /**
   * The node label expression of the job's ApplicationMaster: {@code asked} ({@code
   * --am-node-label}), or when null the configured {@link AmKeys#AM_NODE_LABEL}, as {@link
   * AmPartition} chooses it among the running nodes.
   *
   * @throws IllegalArgumentException when no NodeManager runs in that partition
   */
  String amNodeLabel(String asked, JobSpec spec, SubmissionChecks.ClusterFacts facts) {
    String value =
        asked != null ? asked : conf.getTrimmed(AmKeys.AM_NODE_LABEL, AmKeys.AM_NODE_LABEL_DEFAULT);
    String workers = QueueCheck.leaf(spec.queue(), facts.queues()).defaultNodeLabel();
    return AmPartition.choose(value, workers, facts.nodes());
  }

  /**
   * Stages the job's files and submits its ApplicationMaster as {@code job}, its container in
   * partition {@code amNodeLabel} ("" is the default partition).
   */
  public ApplicationId submit(NewJob job, JobSpec spec, List<File> files, String amNodeLabel)
      throws IOException, YarnException {
    spec.validate();
    for (File f : files) {
      if (!f.isFile()) {
        throw new IllegalArgumentException("--file: no such file '" + f + "'");
      }
    }
    ApplicationSubmissionContext ctx = job.app.getApplicationSubmissionContext();
    ApplicationId id = ctx.getApplicationId();

    Staging staging = Staging.create(conf, AmKeys.STAGING_DIR, ".aryl/staging", id);
    List<StagedFile> workerFiles = new ArrayList<>();
    workerFiles.add(
        staging.write(
            AmKeys.WORKER_SCRIPT,
            ("#!/bin/bash\n" + spec.command() + "\n").getBytes(StandardCharsets.UTF_8)));
    try (InputStream in = JobSubmitter.class.getResourceAsStream(AmKeys.DISCOVERY_FILE)) {
      workerFiles.add(staging.write(AmKeys.DISCOVERY_FILE, in.readAllBytes()));
    }
    for (File f : files) {
      workerFiles.add(staging.copy(f));
    }
    JobSpec staged = spec.withStaging(workerFiles, staging.dir().toString());

    AmLaunch am =
        new AmLaunch(conf, ElasticAppMaster.class, AmKeys.AM_JAR_FILE)
            .file(AmKeys.JOB_FILE, staging.writeResource(AmKeys.JOB_FILE, staged::write))
            .stageCode(staging, AmKeys.AM_JAR, "aryl-am");

    ctx.setApplicationName(spec.name());
    ctx.setQueue(spec.queue());
    ctx.setApplicationType(AmKeys.APPLICATION_TYPE);
    ctx.setApplicationTags(spec.shape().toTags());
    ctx.setKeepContainersAcrossApplicationAttempts(true);
    ctx.setMaxAppAttempts(spec.amAttempts());
    // The AM's partition is AmPartition's choice: the default partition (no GPUs, never a lent
    // node that a reclaim takes back) where one runs, else the training pool. The application's
    // label is the AM's partition, so the workers ask for the queue's label by name.
    am.into(
        ctx,
        spec.amMemoryMb(),
        amNodeLabel,
        Map.of(AmKeys.WORKER_NODE_LABEL_ENV, workerNodeLabel(spec.queue())));
    try {
      yarn.submitApplication(ctx);
    } catch (YarnException e) {
      throw RefusedSubmission.of(yarn, id, e, staging);
    }
    return id;
  }

  /**
   * The partition a queue's containers go to when they name none: its default label, or the default
   * partition.
   */
  private String workerNodeLabel(String queue) throws IOException, YarnException {
    QueueInfo info = yarn.getQueueInfo(queue);
    String label = info == null ? null : info.getDefaultNodeLabelExpression();
    return label == null ? "" : label.trim();
  }

  /** Follows the job to its end, printing state changes; 0 if it succeeded, 1 otherwise. */
  public int waitFor(ApplicationId id, PrintStream out)
      throws IOException, YarnException, InterruptedException {
    String last = "";
    while (true) {
      ApplicationReport r = yarn.getApplicationReport(id);
      String now =
          r.getYarnApplicationState()
              + (r.getTrackingUrl() == null ? "" : " " + r.getTrackingUrl());
      if (!now.equals(last)) {
        out.println(id + " " + now);
        last = now;
      }
      if (DONE.contains(r.getYarnApplicationState())) {
        out.println(
            id
                + " final status "
                + r.getFinalApplicationStatus()
                + (r.getDiagnostics() == null || r.getDiagnostics().isEmpty()
                    ? ""
                    : ": " + r.getDiagnostics()));
        return r.getYarnApplicationState() == YarnApplicationState.FINISHED
                && r.getFinalApplicationStatus() == FinalApplicationStatus.SUCCEEDED
            ? 0
            : 1;
      }
      Thread.sleep(500);
    }
  }

  public ApplicationReport report(ApplicationId id) throws IOException, YarnException {
    return yarn.getApplicationReport(id);
  }

  public List<ApplicationReport> list(boolean all) throws IOException, YarnException {
    EnumSet<YarnApplicationState> states =
        all
            ? EnumSet.allOf(YarnApplicationState.class)
            : EnumSet.complementOf(EnumSet.copyOf(DONE));
    return yarn.getApplications(Set.of(AmKeys.APPLICATION_TYPE), states);
  }

  public void kill(ApplicationId id) throws IOException, YarnException {
    yarn.killApplication(id);
  }

  @Override
  public void close() throws IOException {
    yarn.close();
  }
}
