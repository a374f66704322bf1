package io.aryl.yarn.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.ArylPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.http.lib.StaticUserWebFilter;
import org.apache.hadoop.security.AuthenticationFilterInitializer;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebAppUtil;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "ArylNavLink: an Aryl entry in the RM's Cluster menu, and the RM's web authentication as without it")
class ArylNavLinkTest {
  private static final String OURS = ArylNavLink.Initializer.class.getName();

  static Stream<Arguments> initializerLists() {
    return Stream.of(
        Arguments.of("not set (Hadoop's default)", null),
        Arguments.of("empty", ""),
        Arguments.of("the default alone", StaticUserWebFilter.class.getName()),
        Arguments.of(
            "Hadoop's authentication filter", AuthenticationFilterInitializer.class.getName()),
        Arguments.of(
            "authentication and the static user",
            AuthenticationFilterInitializer.class.getName()
                + ","
                + StaticUserWebFilter.class.getName()));
  }

  @ParameterizedTest(name = "initializers {0}")
  @MethodSource("initializerLists")
  @DisplayName("the RM sets its web app up as it would without Aryl, with Aryl's filter added")
  void sameAuthenticationAsWithoutAryl(String what, String initializers) {
    Configuration without = conf(initializers);
    RMWebAppUtil.setupSecurityAndFilters(without, null);
    Configuration with = conf(initializers);
    ArylNavLink.install(with);
    ArylNavLink.install(
        with); // a failover initialises the scheduler again, on the same configuration
    RMWebAppUtil.setupSecurityAndFilters(with, null);

    List<String> expected =
        new ArrayList<>(without.getTrimmedStringCollection(ArylNavLink.INITIALIZERS));
    expected.add(OURS);
    assertThat(with.getTrimmedStringCollection(ArylNavLink.INITIALIZERS))
        .as(what)
        .containsExactlyElementsOf(expected);
    assertThat(with.get("hadoop.http.authentication.type"))
        .as("authentication type")
        .isEqualTo(without.get("hadoop.http.authentication.type"));
  }

  @Test
  @DisplayName("the entry goes after Scheduler, once, with the menu's own link prefix")
  void entryAfterScheduler() {
    String nav =
        "<div id=\"nav\">\n  <h3>\n    Cluster\n  </h3>\n  <ul>\n    <li>\n      <a href=\"/cluster/cluster\">"
            + "About</a>\n    </li>\n    <li>\n      <a href=\"/cluster/scheduler\">Scheduler</a>\n    </li>\n  </ul>\n"
            + "  <h3>\n    Tools\n  </h3>\n";
    String once = ArylNavLink.withLink(nav);
    assertThat(once)
        .contains(
            "<a href=\"/cluster/scheduler\">Scheduler</a>\n    </li>\n"
                + "<li id=\"aryl-nav\"><a href=\""
                + ArylPaths.PAGE
                + "\">Aryl</a></li>\n  </ul>");
    assertThat(ArylNavLink.withLink(once)).isEqualTo(once);
    assertThat(ArylNavLink.withLink(nav.replace("/cluster/", "/gateway/rm/cluster/")))
        .contains("<a href=\"/gateway/rm" + ArylPaths.PAGE + "\">Aryl</a>");
    // As the RM renders its menu: list items left unclosed.
    String rendered =
        "<ul>\n  <li>\n    <a href=\"/cluster/apps\">Applications</a>\n  <li>\n"
            + "    <a href=\"/cluster/scheduler\">Scheduler</a>\n</ul>";
    assertThat(ArylNavLink.withLink(rendered))
        .isEqualTo(
            "<ul>\n  <li>\n    <a href=\"/cluster/apps\">Applications</a>\n"
                + "  <li>\n    <a href=\"/cluster/scheduler\">Scheduler</a>\n"
                + "<li id=\"aryl-nav\"><a href=\""
                + ArylPaths.PAGE
                + "\">Aryl</a></li>\n</ul>");
  }

  @Test
  @DisplayName("a page without the RM's menu is left as it is")
  void otherPagesUntouched() {
    String page = "<html><body><a href=\"/cluster/app/application_1_0001\">app</a></body></html>";
    assertThat(ArylNavLink.withLink(page)).isEqualTo(page);
  }

  private static Configuration conf(String initializers) {
    Configuration c = new Configuration(false);
    if (initializers != null) {
      c.set(ArylNavLink.INITIALIZERS, initializers);
    }
    return c;
  }
}
