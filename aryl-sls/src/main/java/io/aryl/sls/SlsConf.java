package io.aryl.sls;

import io.aryl.conf.TemplateConf;
import io.aryl.yarn.conf.ArylConf;
import java.io.File;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.sls.appmaster.MRAMSimulator;
import org.apache.hadoop.yarn.sls.appmaster.StreamAMSimulator;
import org.apache.hadoop.yarn.sls.conf.SLSConfiguration;

/**
 * The configuration of one SLS run: the templates an operator starts from (conf-templates), with
 * what SLS needs on top. The two schedulers get the same queues, labels and resource types; only
 * the scheduler class and the training queue's ordering policy (Aryl's is plan-aware, the stock one
 * FIFO) differ.
 */
final class SlsConf {
  /** Which scheduler the RM runs. */
  enum Scheduler {
    ARYL,
    CAPACITY;

    static Scheduler parse(String s) {
      for (Scheduler k : values()) {
        if (k.name().equalsIgnoreCase(s)) {
          return k;
        }
      }
      throw new IllegalArgumentException("--scheduler must be aryl or capacity, was '" + s + "'");
    }

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private SlsConf() {}

  static Configuration of(Scheduler scheduler, File workDir) {
    YarnConfiguration conf = new YarnConfiguration();
    // Node resources come from SLS's node file, not node-resources.xml.
    TemplateConf.overlay(
        conf,
        List.of(
            TemplateConf.YARN_SITE, TemplateConf.CAPACITY_SCHEDULER, TemplateConf.RESOURCE_TYPES));
    // SLS's NodeManagers bring their labels when they register.
    conf.set(
        YarnConfiguration.NODELABEL_CONFIGURATION_TYPE,
        YarnConfiguration.DISTRIBUTED_NODELABEL_CONFIGURATION_TYPE);
    conf.set(
        YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR,
        new File(workDir, "node-labels").toURI().toString());
    for (String key : YarnConfiguration.getServiceAddressConfKeys(conf)) {
      conf.set(key, "localhost:0");
    }
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "localhost:0");
    // Simulated nodes have names, not addresses: container tokens name them as they are.
    conf.setBoolean(CommonConfigurationKeys.HADOOP_SECURITY_TOKEN_SERVICE_USE_IP, false);
    conf.set("yarn.sls.metrics.web.address.port", "0");
    // SLS's own AM types too, as its sls-runner.xml names them: Hadoop's sample traces are
    // MapReduce jobs.
    conf.set(
        SLSConfiguration.AM_TYPE_PREFIX + SlsJobFormat.AM_TYPE, ArylAmSimulator.class.getName());
    conf.set(SLSConfiguration.AM_TYPE_PREFIX + "mapreduce", MRAMSimulator.class.getName());
    conf.set(SLSConfiguration.AM_TYPE_PREFIX + "stream", StreamAMSimulator.class.getName());
    conf.setInt("yarn.sls.nm.heartbeat.interval.ms", 1000);
    conf.setInt("yarn.sls.am.heartbeat.interval.ms", 1000);
    conf.setInt("yarn.sls.runner.pool.size", 32);
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, false);
    // A trace's containers are as large as its node file allows: the RM caps asks at its largest
    // node anyway.
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, 1 << 20);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, 1024);
    String training =
        "yarn.scheduler.capacity."
            + conf.get(ArylConf.TRAINING_QUEUE.key(), ArylConf.TRAINING_QUEUE.defaultValue());
    if (scheduler == Scheduler.ARYL) {
      conf.set(YarnConfiguration.RM_SCHEDULER, SLSArylScheduler.class.getName());
      conf.set(ArylConf.STATE_STORE.key(), "filesystem");
      conf.set(ArylConf.STATE_STORE_DIR.key(), new File(workDir, "aryl-state").toURI().toString());
      conf.setBoolean(ArylConf.WEBAPP_NAV_LINK.key(), false);
      // SLS compresses a trace's hours into minutes; a notice's grace shrinks with it (the AMs give
      // back at once).
      conf.setLong(ArylConf.SHRINK_GRACE_MS.key(), 2000);
      conf.setLong(ArylConf.RESCALE_OVERHEAD_S.key(), 0);
    } else {
      // SLS swaps exactly this class for its own wrapper, SLSCapacityScheduler.
      conf.set(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class.getName());
      conf.unset("yarn.webapp.custom.webservice.class");
      conf.set(training + ".ordering-policy", "fifo");
    }
    return conf;
  }
}
