/*
 * Licensed to the Apache Software Foundation (ASF) under one
 * or more contributor license agreements.  See the NOTICE file
 * distributed with this work for additional information
 * regarding copyright ownership.  The ASF licenses this file
 * to you under the Apache License, Version 2.0 (the
 * "License"); you may not use this file except in compliance
 * with the License.  You may obtain a copy of the License at
 *     http://www.apache.org/licenses/LICENSE-2.0
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/*
 * Aryl: this file is hadoop-sls 3.4.2's AMRunner with one change, marked "Aryl:" below (and the
 * compiler's warnings about upstream's code suppressed where they arise). 3.4.2 reads each job of an
 * SLS JSON trace as Map<String, String>, which the Jackson of Hadoop 3.5.0 refuses for the job.tasks array (and for
 * numbers); the job is then dropped with a one-line error. It is read as a tree here and its scalars turned into the
 * strings the rest of SLS expects. hadoop-sls 3.5.0 is not served, or this copy would not exist. It shadows the
 * class of the hadoop-sls jar, so aryl-sls comes first on the class path (io.aryl.sls.SlsInternals checks that it did).
 */
package org.apache.hadoop.yarn.sls;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.tools.rumen.JobTraceReader;
import org.apache.hadoop.tools.rumen.LoggedJob;
import org.apache.hadoop.util.ReflectionUtils;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ReservationId;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.sls.SLSRunner.TraceType;
import org.apache.hadoop.yarn.sls.appmaster.AMSimulator;
import org.apache.hadoop.yarn.sls.conf.SLSConfiguration;
import org.apache.hadoop.yarn.sls.scheduler.TaskRunner;
import org.apache.hadoop.yarn.sls.synthetic.SynthJob;
import org.apache.hadoop.yarn.sls.synthetic.SynthTraceJobProducer;
import org.apache.hadoop.yarn.util.UTCClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class AMRunner {
  private static final Logger LOG = LoggerFactory.getLogger(AMRunner.class);
  int remainingApps = 0;

  private final Configuration conf;
  private int AM_ID;
  private Map<String, AMSimulator> amMap;
  private Map<ApplicationId, AMSimulator> appIdAMSim;
  private Set<String> trackedApps;

  @SuppressWarnings("rawtypes") // hadoop-sls 3.4.2's code, kept as it is
  private Map<String, Class> amClassMap;

  private TraceType inputType;
  private String[] inputTraces;
  private final TaskRunner runner;
  private final SLSRunner slsRunner;
  private int numAMs, numTasks;
  private long maxRuntime;
  private ResourceManager rm;

  public AMRunner(TaskRunner runner, SLSRunner slsRunner) {
    this.runner = runner;
    this.slsRunner = slsRunner;
    this.conf = slsRunner.getConf();
  }

  public void init(Configuration conf) throws ClassNotFoundException {
    amMap = new ConcurrentHashMap<>();
    amClassMap = new HashMap<>();
    appIdAMSim = new ConcurrentHashMap<>();
    // <AMType, Class> map
    for (Map.Entry<String, String> e : conf) {
      String key = e.getKey();
      if (key.startsWith(SLSConfiguration.AM_TYPE_PREFIX)) {
        String amType = key.substring(SLSConfiguration.AM_TYPE_PREFIX.length());
        amClassMap.put(amType, Class.forName(conf.get(key)));
      }
    }
  }

  @SuppressWarnings("StatementSwitchToExpressionSwitch") // hadoop-sls 3.4.2's code, kept as it is
  public void startAM() throws YarnException, IOException {
    switch (inputType) {
      case SLS:
        for (String inputTrace : inputTraces) {
          startAMFromSLSTrace(inputTrace);
        }
        break;
      case RUMEN:
        long baselineTimeMS = 0;
        for (String inputTrace : inputTraces) {
          startAMFromRumenTrace(inputTrace, baselineTimeMS);
        }
        break;
      case SYNTH:
        startAMFromSynthGenerator();
        break;
      default:
        throw new YarnException(
            "Input configuration not recognized, " + "trace type should be SLS, RUMEN, or SYNTH");
    }

    numAMs = amMap.size();
    remainingApps = numAMs;
  }

  /** Parse workload from a SLS trace file. */
  private void startAMFromSLSTrace(String inputTrace) throws IOException {
    JsonFactory jsonF = new JsonFactory();
    ObjectMapper mapper = new ObjectMapper();

    try (Reader input =
        new InputStreamReader(new FileInputStream(inputTrace), StandardCharsets.UTF_8)) {
      // Aryl: a tree, not Map<String, String> (see the note at the top).
      JavaType type =
          mapper.getTypeFactory().constructMapType(Map.class, String.class, Object.class);
      Iterator<Map<String, Object>> jobIter = mapper.readValues(jsonF.createParser(input), type);

      // Aryl: a job that cannot be run stops the run with the file and the job's place in it,
      // before any AM starts;
      // 3.4.2 logged it and went on without the job.
      int index = 0;
      while (jobIter.hasNext()) {
        index++;
        Map<String, String> jsonJob = null;
        try {
          jsonJob = asStrings(jobIter.next());
          // Aryl: SLS's documentation and its sample traces name a job's AM type "am.type"; 3.4.2
          // reads only
          // "yarn.sls.am.type" and runs every other job as MapReduce.
          jsonJob.putIfAbsent(
              SLSConfiguration.AM_TYPE, jsonJob.get(SLSConfiguration.JOB_AM_PREFIX + "type"));
          String amType = jsonJob.get(SLSConfiguration.AM_TYPE);
          if (amType != null && !amClassMap.containsKey(amType)) {
            throw new IllegalArgumentException(
                SLSConfiguration.AM_TYPE
                    + " '"
                    + amType
                    + "' is not a known AM type"
                    + " (known: "
                    + amClassMap.keySet()
                    + ")");
          }
          AMDefinitionSLS amDef = AMDefinitionFactory.createFromSlsTrace(jsonJob, slsRunner);
          startAMs(amDef);
        } catch (Exception e) {
          String id = jsonJob == null ? null : jsonJob.get(SLSConfiguration.JOB_ID);
          throw new IllegalArgumentException(
              inputTrace
                  + ": job "
                  + index
                  + (id == null ? "" : " (" + id + ")")
                  + ": "
                  + e.getMessage(),
              e);
        }
      }
    }
  }

  /** parse workload information from synth-generator trace files. */
  private void startAMFromSynthGenerator() throws YarnException, IOException {
    Configuration localConf = new Configuration();
    localConf.set("fs.defaultFS", "file:///");
    // if we use the nodeFile this could have been not initialized yet.
    if (slsRunner.getStjp() == null) {
      slsRunner.setStjp(new SynthTraceJobProducer(conf, new Path(inputTraces[0])));
    }

    SynthJob job;
    // we use stjp, a reference to the job producer instantiated during node
    // creation
    while ((job = (SynthJob) slsRunner.getStjp().getNextJob()) != null) {
      ReservationId reservationId = null;
      if (job.hasDeadline()) {
        reservationId = ReservationId.newInstance(rm.getStartTime(), AM_ID);
      }
      AMDefinitionSynth amDef = AMDefinitionFactory.createFromSynth(job, slsRunner);
      startAMs(amDef, reservationId, job.getParams(), job.getDeadline());
    }
  }

  /** Parse workload from a rumen trace file. */
  private void startAMFromRumenTrace(String inputTrace, long baselineTimeMS) throws IOException {
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", "file:///");
    File fin = new File(inputTrace);

    try (JobTraceReader reader = new JobTraceReader(new Path(fin.getAbsolutePath()), conf)) {
      LoggedJob job = reader.getNext();

      while (job != null) {
        try {
          AMDefinitionRumen amDef =
              AMDefinitionFactory.createFromRumenTrace(job, baselineTimeMS, slsRunner);
          startAMs(amDef);
        } catch (Exception e) {
          LOG.error("Failed to create an AM", e);
        }
        job = reader.getNext();
      }
    }
  }

  private void startAMs(AMDefinition amDef) {
    for (int i = 0; i < amDef.getJobCount(); i++) {
      JobDefinition jobDef =
          JobDefinition.Builder.create()
              .withAmDefinition(amDef)
              .withDeadline(-1)
              .withReservationId(null)
              .withParams(null)
              .build();
      runNewAM(jobDef);
    }
  }

  private void startAMs(
      AMDefinition amDef, ReservationId reservationId, Map<String, String> params, long deadline) {
    for (int i = 0; i < amDef.getJobCount(); i++) {
      JobDefinition jobDef =
          JobDefinition.Builder.create()
              .withAmDefinition(amDef)
              .withReservationId(reservationId)
              .withParams(params)
              .withDeadline(deadline)
              .build();
      runNewAM(jobDef);
    }
  }

  private void runNewAM(JobDefinition jobDef) {
    AMDefinition amDef = jobDef.getAmDefinition();
    String oldJobId = amDef.getOldAppId();
    AMSimulator amSim = createAmSimulator(amDef.getAmType());

    if (amSim != null) {
      int heartbeatInterval =
          conf.getInt(
              SLSConfiguration.AM_HEARTBEAT_INTERVAL_MS,
              SLSConfiguration.AM_HEARTBEAT_INTERVAL_MS_DEFAULT);
      boolean isTracked = trackedApps.contains(oldJobId);

      if (oldJobId == null) {
        oldJobId = Integer.toString(AM_ID);
      }
      AM_ID++;
      amSim.init(
          amDef, rm, slsRunner, isTracked, runner.getStartTimeMS(), heartbeatInterval, appIdAMSim);
      if (jobDef.getReservationId() != null) {
        // if we have a ReservationId, delegate reservation creation to
        // AMSim (reservation shape is impl specific)
        UTCClock clock = new UTCClock();
        amSim.initReservation(jobDef.getReservationId(), jobDef.getDeadline(), clock.getTime());
      }
      runner.schedule(amSim);
      maxRuntime = Math.max(maxRuntime, amDef.getJobFinishTime());
      numTasks += amDef.getTaskContainers().size();
      amMap.put(oldJobId, amSim);
    }
  }

  @SuppressWarnings("unchecked") // hadoop-sls 3.4.2's code, kept as it is
  private AMSimulator createAmSimulator(String jobType) {
    return (AMSimulator) ReflectionUtils.newInstance(amClassMap.get(jobType), new Configuration());
  }

  public AMSimulator getAMSimulator(ApplicationId appId) {
    return appIdAMSim.get(appId);
  }

  public void setInputType(TraceType inputType) {
    this.inputType = inputType;
  }

  public void setInputTraces(String[] inputTraces) {
    this.inputTraces = inputTraces.clone();
  }

  public void setResourceManager(ResourceManager rm) {
    this.rm = rm;
  }

  public Set<String> getTrackedApps() {
    return trackedApps;
  }

  public void setTrackedApps(Set<String> trackApps) {
    this.trackedApps = trackApps;
  }

  public int getNumAMs() {
    return numAMs;
  }

  public int getNumTasks() {
    return numTasks;
  }

  public long getMaxRuntime() {
    return maxRuntime;
  }

  public Map<String, AMSimulator> getAmMap() {
    return amMap;
  }

  /**
   * Aryl: a job read as a tree, with its scalars as strings and job.tasks as a list of such maps.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Map<String, String> asStrings(Map<String, Object> tree) {
    Map out = new java.util.LinkedHashMap();
    for (Map.Entry<String, Object> e : tree.entrySet()) {
      Object v = e.getValue();
      if (v instanceof List<?> list) {
        List<Object> items = new ArrayList<>();
        for (Object item : list) {
          items.add(
              item instanceof Map ? asStrings((Map<String, Object>) item) : String.valueOf(item));
        }
        out.put(e.getKey(), items);
      } else if (v instanceof Map) {
        out.put(e.getKey(), asStrings((Map<String, Object>) v));
      } else {
        out.put(e.getKey(), v == null ? null : v.toString());
      }
    }
    return out;
  }
}
