package io.aryl.am;

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
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.URL;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
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

    FileSystem fs = FileSystem.get(conf);
    String root =
        conf.get(AmKeys.STAGING_DIR, new Path(fs.getHomeDirectory(), ".aryl/staging").toString());
    Path staging = fs.makeQualified(new Path(root, id.toString()));
    fs.mkdirs(staging);

    List<JobSpec.StagedFile> workerFiles = new ArrayList<>();
    workerFiles.add(
        stage(
            fs,
            staging,
            AmKeys.WORKER_SCRIPT,
            ("#!/bin/bash\n" + spec.command() + "\n").getBytes(StandardCharsets.UTF_8)));
    try (InputStream in = JobSubmitter.class.getResourceAsStream(AmKeys.DISCOVERY_FILE)) {
      workerFiles.add(stage(fs, staging, AmKeys.DISCOVERY_FILE, in.readAllBytes()));
    }
    for (File f : files) {
      Path dst = new Path(staging, f.getName());
      fs.copyFromLocalFile(false, true, new Path(f.getAbsolutePath()), dst);
      workerFiles.add(staged(fs, dst, f.getName()));
    }
    JobSpec staged = spec.withStaging(workerFiles, staging.toString());

    Map<String, LocalResource> amFiles = new HashMap<>();
    Path jobFile = new Path(staging, AmKeys.JOB_FILE);
    try (OutputStream out = fs.create(jobFile, true)) {
      staged.write(out);
    }
    amFiles.put(AmKeys.JOB_FILE, resource(fs, jobFile));
    String jar = conf.get(AmKeys.AM_JAR, ClassUtil.findContainingJar(ElasticAppMaster.class));
    boolean mini = conf.getBoolean(YarnConfiguration.IS_MINI_YARN_CLUSTER, false);
    if (jar != null) {
      Path dst = new Path(staging, AmKeys.AM_JAR_FILE);
      fs.copyFromLocalFile(false, true, new Path(new File(jar).getAbsolutePath()), dst);
      amFiles.put(AmKeys.AM_JAR_FILE, resource(fs, dst));
    } else if (!mini) {
      throw new IllegalStateException(
          "cannot find the aryl-am jar to ship: run from it (yarn jar) or set " + AmKeys.AM_JAR);
    }
    if (mini) {
      // A MiniYARNCluster's NMs have no Hadoop configuration of their own: give the AM the client's
      // (RM address).
      Path dst = new Path(staging, AmKeys.CLIENT_CONF_FILE);
      try (OutputStream out = fs.create(dst, true)) {
        conf.writeXml(out);
      }
      amFiles.put(AmKeys.CLIENT_CONF_FILE, resource(fs, dst));
    }

    ctx.setApplicationName(spec.name());
    ctx.setQueue(spec.queue());
    ctx.setApplicationType(AmKeys.APPLICATION_TYPE);
    ctx.setApplicationTags(spec.shape().toTags());
    ctx.setKeepContainersAcrossApplicationAttempts(true);
    ctx.setMaxAppAttempts(spec.amAttempts());
    Resource amResource = Resource.newInstance(spec.amMemoryMb(), 1);
    ResourceRequest amRequest =
        ResourceRequest.newInstance(Priority.newInstance(0), ResourceRequest.ANY, amResource, 1);
    // The AM's partition is AmPartition's choice: the default partition (no GPUs, never a lent
    // node that a reclaim takes back) where one runs, else the training pool. The RM replaces an
    // empty AM label by the application's label, and a missing application label by the queue's
    // default (training): so the application's label is set to the AM's partition explicitly,
    // and the workers ask for the queue's label by name.
    amRequest.setNodeLabelExpression(amNodeLabel);
    ctx.setNodeLabelExpression(amNodeLabel);
    ctx.setAMContainerResourceRequests(List.of(amRequest));
    ctx.setResource(amResource);

    Map<String, String> env = new HashMap<>();
    env.put(AmKeys.WORKER_NODE_LABEL_ENV, workerNodeLabel(spec.queue()));
    env.put(Environment.CLASSPATH.name(), amClasspath(mini));
    String log = ApplicationConstants.LOG_DIR_EXPANSION_VAR;
    String command =
        Environment.JAVA_HOME.$$()
            + "/bin/java -Xmx"
            + Math.max(64, spec.amMemoryMb() * 3 / 4)
            + "m "
            + ElasticAppMaster.class.getName()
            + " 1>"
            + log
            + "/AppMaster.stdout 2>"
            + log
            + "/AppMaster.stderr";
    ctx.setAMContainerSpec(
        ContainerLaunchContext.newInstance(amFiles, env, List.of(command), null, null, null));
    try {
      yarn.submitApplication(ctx);
    } catch (YarnException e) {
      throw refused(id, e, fs, staging);
    }
    return id;
  }

  /**
   * What a failed submission was: a refusal when the ResourceManager rejected the application (it
   * ended at once) or never took it (a queue's ACL, a request it does not accept), with its reason
   * and the staged files deleted; else the failure itself (e.g. a wait for the submission that
   * timed out, the application still on its way).
   */
  private YarnException refused(ApplicationId id, YarnException e, FileSystem fs, Path staging)
      throws IOException {
    ApplicationReport r;
    try {
      r = yarn.getApplicationReport(id);
    } catch (ApplicationNotFoundException absent) {
      r = null;
    } catch (YarnException | IOException unknown) {
      return e;
    }
    if (r != null
        && r.getYarnApplicationState() != YarnApplicationState.FAILED
        && r.getYarnApplicationState() != YarnApplicationState.KILLED) {
      return e;
    }
    try {
      fs.delete(staging, true); // no AM will run to delete it
    } catch (IOException ignored) {
      // the refusal is what the submitter needs to hear
    }
    String diagnostics = r == null ? "" : String.valueOf(r.getDiagnostics()).strip();
    String why =
        diagnostics.isEmpty() || diagnostics.equals("null")
            ? RefusedSubmission.plain(e.getMessage())
            : RefusedSubmission.plain(diagnostics);
    return new RefusedSubmission("the ResourceManager refused " + id + ": " + why, e);
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

  private String amClasspath(boolean mini) {
    String sep = ApplicationConstants.CLASS_PATH_SEPARATOR;
    StringBuilder cp =
        new StringBuilder(Environment.PWD.$$())
            .append(sep)
            .append(Environment.PWD.$$())
            .append('/')
            .append(AmKeys.AM_JAR_FILE);
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

  private static JobSpec.StagedFile stage(FileSystem fs, Path dir, String name, byte[] content)
      throws IOException {
    Path p = new Path(dir, name);
    try (OutputStream out = fs.create(p, true)) {
      out.write(content);
    }
    return staged(fs, p, name);
  }

  private static JobSpec.StagedFile staged(FileSystem fs, Path p, String name) throws IOException {
    FileStatus s = fs.getFileStatus(p);
    return new JobSpec.StagedFile(
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
