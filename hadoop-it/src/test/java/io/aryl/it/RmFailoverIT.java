package io.aryl.it;

import java.io.File;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;

/**
 * {@link RmRecoveryScenarios} across a real failover: two ResourceManagers, leader elected in
 * ZooKeeper, the active one stopped, the standby taking over with a new scheduler instance; Aryl's
 * state in ZooKeeper.
 */
@DisplayName("Across a ResourceManager failover")
class RmFailoverIT extends RmRecoveryScenarios {
  @Override
  YarnConfiguration conf(File workDir) {
    return ArylMiniCluster.haConf(workDir);
  }

  @Override
  void restartOrFailOver(ArylMiniCluster cluster) throws Exception {
    cluster.failover();
  }

  @Override
  String event() {
    return "failover";
  }
}
