package io.aryl.conf;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebServices;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("yarn-site.xml template")
class YarnSiteTemplateTest {

  private final Configuration conf = Templates.load(Templates.YARN_SITE);

  @Test
  @DisplayName("names io.aryl.yarn.ArylScheduler as the RM scheduler, and that class loads")
  void schedulerIsAryl() throws Exception {
    assertThat(conf.get(YarnConfiguration.RM_SCHEDULER)).isEqualTo("io.aryl.yarn.ArylScheduler");
    assertThat(Class.forName(conf.get(YarnConfiguration.RM_SCHEDULER))).isNotNull();
  }

  @Test
  @DisplayName("the scheduler is a CapacityScheduler, so capacity-scheduler.xml applies to it")
  void schedulerIsACapacityScheduler() throws Exception {
    Class<?> scheduler = conf.getClass(YarnConfiguration.RM_SCHEDULER, null);
    assertThat(scheduler).isNotNull();
    assertThat(CapacityScheduler.class).isAssignableFrom(scheduler);
  }

  @Test
  @DisplayName(
      "names ArylWebServices as the RM web services, which extends RMWebServices and so keeps the stock endpoints")
  void webServicesKeepTheStockEndpoints() {
    assertThat(conf.get(YarnConfiguration.YARN_WEBAPP_CUSTOM_WEBSERVICE_CLASS))
        .isEqualTo("io.aryl.yarn.web.ArylWebServices");
    Class<?> webServices =
        conf.getClass(YarnConfiguration.YARN_WEBAPP_CUSTOM_WEBSERVICE_CLASS, null);
    assertThat(webServices).isNotNull();
    assertThat(RMWebServices.class).isAssignableFrom(webServices);
  }

  @Test
  @DisplayName("enables centralized node labels with a filesystem store")
  void nodeLabelsAreCentralized() {
    assertThat(conf.getBoolean(YarnConfiguration.NODE_LABELS_ENABLED, false)).isTrue();
    assertThat(conf.get(YarnConfiguration.NODELABEL_CONFIGURATION_TYPE))
        .isEqualTo(YarnConfiguration.DEFAULT_NODELABEL_CONFIGURATION_TYPE)
        .isEqualTo("centralized");
    assertThat(conf.get(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR)).isNotBlank();
  }

  @Test
  @DisplayName("keeps node names host-only (include-port-in-node-name is for several NMs per host)")
  void nodeNamesAreHostOnly() {
    assertThat(conf.get(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME)).isNotNull();
    assertThat(conf.getBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, true))
        .isFalse();
  }
}
