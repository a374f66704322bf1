package io.aryl.am;

import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;

/** Builds the launch context of a worker of a generation, and of a parked (idle) container. */
public final class WorkerLauncher {
  private final JobSpec spec;
  private final String jobId;
  private final String amUrl;

  public WorkerLauncher(JobSpec spec, String jobId, String amUrl) {
    this.spec = spec;
    this.jobId = jobId;
    this.amUrl = amUrl;
  }

  /** The environment of worker {@code id} in generation {@code g}: the user's, then Aryl's (which wins). */
  public Map<String, String> env(Generation g, String id) {
    Map<String, String> env = new HashMap<>(spec.env());
    env.putAll(g.env(id));
    env.put(AmKeys.CHECKPOINT_DIR, spec.checkpointDir());
    env.put(AmKeys.DISCOVERY_SCRIPT, ApplicationConstants.Environment.PWD.$$() + "/" + AmKeys.DISCOVERY_FILE);
    env.put(AmKeys.AM_URL, amUrl);
    env.put(AmKeys.JOB_ID, jobId);
    return env;
  }

  public ContainerLaunchContext worker(Generation g, String id) {
    String log = ApplicationConstants.LOG_DIR_EXPANSION_VAR;
    String cmd = "/bin/bash " + AmKeys.WORKER_SCRIPT + " 1>>" + log + "/worker.stdout 2>>" + log + "/worker.stderr";
    return ContainerLaunchContext.newInstance(resources(), env(g, id), List.of(cmd), null, null, null);
  }

  /** Keeps the container and its GPUs while the job has fewer than min workers: no worker process runs. */
  public ContainerLaunchContext parked() {
    String cmd = "/bin/bash -c 'while true; do sleep 3600; done'";
    return ContainerLaunchContext.newInstance(Map.of(), Map.of(AmKeys.JOB_ID, jobId), List.of(cmd), null, null,
        null);
  }

  private Map<String, LocalResource> resources() {
    Map<String, LocalResource> out = new HashMap<>();
    for (JobSpec.StagedFile f : spec.files()) {
      out.put(f.name(), LocalResource.newInstance(URL.fromURI(URI.create(f.uri())), LocalResourceType.FILE,
          LocalResourceVisibility.APPLICATION, f.size(), f.timestamp()));
    }
    return out;
  }
}
