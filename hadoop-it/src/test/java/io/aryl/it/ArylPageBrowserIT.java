package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.History;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.it.ArylMiniCluster.Http;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Aryl's page ({@code /ws/v1/cluster/aryl/page}) in headless Chromium on a running cluster:
 * inference nodes 0 and 1 lent to training, a reclaim already done, two elastic jobs filling the
 * training pool (workers that ignore their PreemptionMessage, and a long shrink grace), a job too
 * wide to ever be admitted, and a reclaim in flight. The page's tiles, tables and charts must show
 * what {@code GET /ws/v1/cluster/aryl} shows; an application link leads to the RM's page of the
 * application. A second cluster with {@code yarn.acl.enable} and HTTP authentication without
 * anonymous access shows the page answering as the RM's own pages do. Screenshots go to
 * target/browser-artifacts/.
 */
@DisplayName(
    "Aryl's page in headless Chromium: tiles, reclaims, applications and charts as the REST status; RM access rules")
class ArylPageBrowserIT {
  private static final String PAGE = ArylPaths.PAGE;
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Long enough that the reclaim in flight is still draining while the page is read. */
  private static final long GRACE_MS = 90_000;

  @TempDir Path dir;

  @Test
  @DisplayName(
      "the page shows loans, a reclaim in flight, the last reclaim, elastic jobs and charts as the REST status")
  void pageShowsTheRestState() throws Exception {
    YarnConfiguration conf = ArylMiniCluster.testConf(dir.toFile());
    conf.setLong("aryl.scheduler.shrink-grace-ms", GRACE_MS);
    try (ArylMiniCluster cluster = ArylMiniCluster.start("page", conf, 2, 1);
        HeadlessChromium chromium = new HeadlessChromium(dir.resolve("chromium-profile"))) {
      ChromeDriver browser = chromium.driver;
      cluster.lend(0);
      cluster.lend(1);
      cluster.awaitShowingStatus("2 nodes on loan", () -> loaned(cluster) == 2);
      // A reclaim of an empty loaned node is done at once: it is the page's last reclaim. Lend the
      // node again.
      ReclaimStatus first = ArylStatus.reclaim(cluster, 1, 0);
      String firstId = Long.toString(first.id());
      cluster.awaitShowingStatus(
          "the first reclaim done",
          () -> {
            SchedulerStatus s = ArylStatus.orNull(cluster);
            return s != null && s.reclaimsDone().size() == 1;
          });
      String returned = first.nodes().get(0);
      cluster.lend(returned.equals(cluster.nodeName(0)) ? 0 : 1);
      cluster.awaitShowingStatus("2 nodes on loan again", () -> loaned(cluster) == 2);

      try (TestJob e =
              TestJob.submit(cluster, "e", "training", TestJob.shape(1, 16, 1, 36000), 1, false);
          TestJob g =
              TestJob.submit(cluster, "g", "training", TestJob.shape(1, 8, 1, 36000), 1, false);
          TestJob wide =
              TestJob.submit(
                  cluster, "wide", "training", TestJob.shape(30, 30, 1, 600), 1, false)) {
        e.askWorkersAtOnce(16);
        cluster.awaitShowingStatus("E holds 16 workers", () -> e.workers() == 16);
        g.askWorkersAtOnce(8);
        cluster.awaitShowingStatus("G holds 8 workers", () -> g.workers() == 8);
        // The status counts the workers a round saw: the page is compared against it only once a
        // round has seen them.
        cluster.awaitShowingStatus(
            "a round has seen E's 16 and G's 8 workers",
            () ->
                ArylStatus.actualWorkers(cluster, e.id()) == 16
                    && ArylStatus.actualWorkers(cluster, g.id()) == 8);
        wide.askWorkersAtOnce(30);

        long deadline = System.currentTimeMillis() + 120_000;
        String reclaimId = Long.toString(ArylStatus.reclaim(cluster, 1, deadline).id());
        // The reclaim is started by the REST call; the job it shrinks gets its lower target in the
        // round after, which a busy machine runs later than the call returns: the page is compared
        // with a status that has planned the shrink.
        cluster.awaitShowingStatus(
            "the reclaim draining, and a round after it that planned the shrink",
            () -> {
              SchedulerStatus s = ArylStatus.orNull(cluster);
              return s != null
                  && s.reclaimsInFlight().size() == 1
                  && !s.reclaimsInFlight().get(0).jobs().isEmpty()
                  && s.applications().stream()
                      .anyMatch(a -> a.targetWorkers() > 0 && a.targetWorkers() < a.maxWorkers());
            });

        long t0 = System.nanoTime();
        SchedulerStatus status = openMatching(cluster, browser);
        System.out.printf(
            "page loaded and matched in %d ms%n", (System.nanoTime() - t0) / 1_000_000);

        // Readable without JavaScript: no script at all; it reloads itself.
        assertThat(browser.findElements(By.tagName("script"))).as("scripts on the page").isEmpty();
        assertThat(
                browser
                    .findElement(By.cssSelector("meta[http-equiv=refresh]"))
                    .getAttribute("content"))
            .isEqualTo("10");

        // Tiles: one per node, in the pool (label) it serves, as the status says.
        for (NodeStatus n : status.nodes()) {
          String node = n.node();
          WebElement tile = browser.findElement(By.cssSelector(".tile[data-node='" + node + "']"));
          WebElement pool = tile.findElement(By.xpath("ancestor::div[@class='pool']"));
          assertThat(pool.getAttribute("data-pool")).as("pool of %s", node).isEqualTo(n.label());
          // The unlabelled node that holds the ApplicationMasters is of neither pool: owner -.
          assertThat(tile.findElement(By.cssSelector(".owner")).getText())
              .as("owner of %s", node)
              .isEqualTo(n.owner() == null ? "-" : n.owner().value());
          assertThat(tile.findElement(By.cssSelector(".label")).getText()).isEqualTo(n.label());
          assertThat(tile.findElement(By.cssSelector(".gpus")).getText())
              .as("GPUs of %s", node)
              .isEqualTo(n.usedGpus() + " / " + n.gpus());
          assertThat(tile.getText().contains("on loan"))
              .as("%s on loan", node)
              .isEqualTo(n.loaned());
          assertThat(tile.getText().contains("fenced")).as("%s fenced", node).isEqualTo(n.fenced());
        }
        assertThat(browser.findElements(By.cssSelector(".tile"))).hasSize(status.nodes().size());
        assertThat(browser.findElements(By.cssSelector(".tile.loaned"))).hasSize(2);
        assertThat(browser.findElements(By.cssSelector(".tile.fenced")))
            .as("the node being returned")
            .hasSize(1);

        // The reclaim in flight: nodes, deadline, time left, what it drains.
        ReclaimStatus r = status.reclaimsInFlight().get(0);
        assertThat(Long.toString(r.id())).isEqualTo(reclaimId);
        WebElement row =
            browser.findElement(
                By.cssSelector("#reclaims-in-flight tr[data-reclaim='" + reclaimId + "']"));
        assertThat(row.findElement(By.cssSelector(".phase")).getText()).isEqualTo(r.phase().name());
        assertThat(row.findElement(By.cssSelector(".nodes")).getText())
            .isEqualTo(String.join(", ", r.nodes()));
        assertThat(row.findElement(By.cssSelector(".deadline")).getAttribute("data-deadline-ms"))
            .isEqualTo(Long.toString(deadline))
            .isEqualTo(Long.toString(r.deadlineMs()));
        assertThat(row.findElement(By.cssSelector(".left")).getText()).matches("\\d+ s");
        assertThat(
                Integer.parseInt(row.findElement(By.cssSelector(".left")).getText().split(" ")[0]))
            .isBetween(1, 120);
        Map<String, String> jobs = new TreeMap<>();
        r.jobs().forEach((app, action) -> jobs.put(app, action.name()));
        assertThat(drained(row)).as("jobs drained").isEqualTo(jobs);
        assertThat(row.findElement(By.cssSelector(".shrunk")).getText())
            .isEqualTo(Integer.toString(r.containersShrunk()));
        assertThat(row.findElement(By.cssSelector(".preempted")).getText())
            .isEqualTo(Integer.toString(r.containersPreempted()));

        // The last reclaim: done, on time, how long it took.
        ReclaimStatus done = status.reclaimsDone().get(0);
        WebElement doneRow =
            browser.findElement(
                By.cssSelector("#reclaims-done tr[data-reclaim='" + firstId + "']"));
        assertThat(doneRow.findElement(By.cssSelector(".phase")).getText()).isEqualTo("DONE");
        assertThat(doneRow.findElement(By.cssSelector(".nodes")).getText()).isEqualTo(returned);
        assertThat(doneRow.findElement(By.cssSelector(".took")).getText())
            .isEqualTo(String.format(java.util.Locale.ROOT, "%.1f s", done.tookMs() / 1000.0));
        assertThat(doneRow.findElement(By.cssSelector(".late")).getText()).isEqualTo("on time");

        // Each elastic application's min / target / actual / max.
        assertThat(status.applications()).hasSize(3);
        for (ApplicationStatus a : status.applications()) {
          String id = a.application();
          WebElement app =
              browser.findElement(
                  By.cssSelector("#applications tr[data-application='" + id + "']"));
          Map<String, Object> shownAs =
              Map.of(
                  "min",
                  a.minWorkers(),
                  "target",
                  a.targetWorkers(),
                  "actual",
                  a.actualWorkers(),
                  "max",
                  a.maxWorkers(),
                  "change",
                  a.change());
          shownAs.forEach(
              (css, value) ->
                  assertThat(app.findElement(By.cssSelector("." + css)).getText())
                      .as("%s of %s", css, id)
                      .isEqualTo(String.valueOf(value)));
          assertThat(app.findElement(By.cssSelector(".application a")).getAttribute("href"))
              .isEqualTo(cluster.webAddress() + "/cluster/app/" + id);
          assertThat(app.findElement(By.cssSelector(".below-max")).getText())
              .as("why %s runs below its maximum", id)
              .isEqualTo(a.belowMaxBecause() == null ? "" : a.belowMaxBecause());
        }
        // The reclaim shrank a job below its maximum: the page says why, beside its workers.
        List<ApplicationStatus> belowMax =
            status.applications().stream()
                .filter(a -> a.targetWorkers() > 0 && a.targetWorkers() < a.maxWorkers())
                .toList();
        assertThat(belowMax).as("jobs the reclaim shrank").isNotEmpty();
        for (ApplicationStatus a : belowMax) {
          assertThat(
                  textOf(
                      browser,
                      "#applications tr[data-application='" + a.application() + "'] .below-max"))
              .as("why %s runs %d of %d", a.application(), a.targetWorkers(), a.maxWorkers())
              .isNotBlank();
        }
        assertThat(
                textOf(browser, "#applications tr[data-application='" + wide.id() + "'] .actual"))
            .isEqualTo("0");

        // Charts end at the current status: loaned nodes, queued jobs, GPUs used by pool.
        Map<String, Integer> used = new TreeMap<>();
        for (NodeStatus n : status.nodes()) {
          used.merge(n.label(), n.usedGpus(), Integer::sum);
        }
        int queued = 0;
        for (ApplicationStatus a : status.applications()) {
          queued += a.actualWorkers() == 0 ? 1 : 0;
        }
        assertThat(queued).as("the wide job waits").isEqualTo(1);
        assertThat(last(browser, "loaned", "on loan"))
            .isEqualTo(status.loanedNodes().size())
            .isEqualTo(2);
        assertThat(last(browser, "queued", "queued")).isEqualTo(queued);
        assertThat(last(browser, "gpus", "training")).isEqualTo(used.get("training")).isEqualTo(24);
        assertThat(last(browser, "gpus", "inference")).isEqualTo(used.getOrDefault("inference", 0));
        History history = ArylJson.read(cluster.get(ArylPaths.HISTORY).body(), History.class);
        assertThat(history.intervalMs()).isEqualTo(60_000);
        assertThat(history.capacity()).isEqualTo(360);
        assertThat(history.samples()).as("a sample since the RM started").isNotEmpty();
        for (String chart : List.of("loaned", "queued", "gpus")) {
          WebElement svg = browser.findElement(By.cssSelector("#chart-" + chart + " svg"));
          assertThat(svg.getSize().getWidth()).as("chart %s drawn", chart).isGreaterThan(300);
          assertThat(
                  Integer.parseInt(
                      browser.findElement(By.id("chart-" + chart)).getAttribute("data-points")))
              .as("points of chart %s: the samples and now", chart)
              .isGreaterThanOrEqualTo(2);
        }
        chromium.screenshot("aryl-page.png");

        // Follow E's link: the RM's page of the application.
        browser
            .findElement(
                By.cssSelector(
                    "#applications tr[data-application='" + e.id() + "'] .application a"))
            .click();
        new WebDriverWait(browser, WAIT)
            .until(d -> d.getCurrentUrl().endsWith("/cluster/app/" + e.id()));
        assertThat(browser.findElement(By.tagName("body")).getText())
            .contains(e.id().toString(), "root.training");
        chromium.screenshot("aryl-page-application.png");

        // And back through the RM's own Cluster menu, where Aryl's entry follows Scheduler.
        WebElement entry = browser.findElement(By.cssSelector("#nav #aryl-nav a"));
        assertThat(entry.getText()).isEqualTo("Aryl");
        assertThat(
                browser
                    .findElement(By.xpath("//li[@id='aryl-nav']/preceding-sibling::li[1]/a"))
                    .getText())
            .isEqualTo("Scheduler");
        entry.click();
        new WebDriverWait(browser, WAIT).until(d -> d.getCurrentUrl().endsWith(PAGE));
        assertThat(browser.findElements(By.cssSelector(".tile"))).hasSize(status.nodes().size());
      }
    }
  }

  @Test
  @DisplayName(
      "with yarn.acl.enable and no anonymous access the page answers as the RM's pages: 401, then 200 and the caller's applications")
  void pageFollowsTheRmAccessRules() throws Exception {
    YarnConfiguration conf = ArylMiniCluster.testConf(dir.toFile());
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    conf.set(YarnConfiguration.YARN_ADMIN_ACL, "admin");
    conf.set(
        "hadoop.http.filter.initializers",
        "org.apache.hadoop.security.AuthenticationFilterInitializer");
    conf.set("hadoop.http.authentication.type", "simple");
    conf.setBoolean("hadoop.http.authentication.simple.anonymous.allowed", false);
    conf.setBoolean(YarnConfiguration.FILTER_ENTITY_LIST_BY_USER, true);
    // Queue admins may view every application of their queues, and root's default admin ACL is
    // everyone: none here.
    conf.set("yarn.scheduler.capacity.root.acl_administer_queue", " ");
    try (ArylMiniCluster cluster = ArylMiniCluster.start("page-acl", conf, 1, 1);
        TestJob job =
            TestJob.submit(cluster, "mine", "training", TestJob.shape(1, 2, 1, 600), 1, true);
        HeadlessChromium chromium = new HeadlessChromium(dir.resolve("chromium-acl-profile"))) {
      String id = job.id().toString();
      String owner = cluster.client().getApplicationReport(job.id()).getUser();
      assertThat(owner).isNotIn("bob", "admin");
      job.askWorkers(2);
      ArylMiniCluster.await("the job holds 2 workers", WAIT, () -> job.workers() == 2);

      // No user: refused as the RM's own pages are.
      for (String path : List.of("/cluster/scheduler", ArylPaths.STATUS, PAGE)) {
        assertThat(html(cluster, path).status()).as("anonymous GET %s", path).isEqualTo(401);
      }
      // bob may read the pages, but not see another user's application, neither in the RM's list
      // nor on the page.
      Http rmApps = cluster.get("/ws/v1/cluster/apps?user.name=bob");
      assertThat(rmApps.status()).isEqualTo(200);
      assertThat(rmApps.body()).doesNotContain(id);
      Http bobPage = html(cluster, PAGE + "?user.name=bob");
      assertThat(bobPage.status()).isEqualTo(200);
      assertThat(bobPage.body())
          .doesNotContain(id)
          .contains("1 application(s) you may not view are not listed.");
      assertThat(cluster.get("/cluster/scheduler?user.name=bob").status()).isEqualTo(200);
      // The admin sees it on both.
      assertThat(cluster.get("/ws/v1/cluster/apps?user.name=admin").body()).contains(id);
      assertThat(html(cluster, PAGE + "?user.name=admin").body()).contains(id);

      // Its owner, in the browser: the page lists the job; its link opens the RM's page of it (the
      // authentication
      // cookie carries the user on).
      ChromeDriver browser = chromium.driver;
      browser.get(cluster.webAddress() + PAGE + "?user.name=" + owner);
      WebElement link =
          browser.findElement(
              By.cssSelector("#applications tr[data-application='" + id + "'] .application a"));
      assertThat(browser.findElements(By.cssSelector(".hidden-apps"))).isEmpty();
      assertThat(browser.findElements(By.cssSelector(".tile"))).hasSize(3);
      chromium.screenshot("aryl-page-acl.png");
      link.click();
      new WebDriverWait(browser, WAIT).until(d -> d.getCurrentUrl().endsWith("/cluster/app/" + id));
      assertThat(browser.findElement(By.tagName("body")).getText())
          .contains(id)
          .doesNotContain("not authorized");
      // The RM's menu leads back, as the same user.
      browser.findElement(By.cssSelector("#nav #aryl-nav a")).click();
      new WebDriverWait(browser, WAIT).until(d -> d.getCurrentUrl().endsWith(PAGE));
      assertThat(
              browser.findElement(
                  By.cssSelector("#applications tr[data-application='" + id + "']")))
          .isNotNull();
    }
  }

  // ---------------------------------------------------------------------------------------------------------------

  /**
   * Opens the page between two reads of the status until both reads agree on what the page shows (a
   * round may move things in between); returns that status.
   */
  private static SchedulerStatus openMatching(ArylMiniCluster cluster, ChromeDriver browser)
      throws Exception {
    AtomicReference<SchedulerStatus> status = new AtomicReference<>();
    ArylMiniCluster.await(
        "the status stays put while the page loads",
        WAIT,
        () -> {
          try {
            SchedulerStatus before = cluster.status();
            browser.get(cluster.webAddress() + PAGE);
            SchedulerStatus after = cluster.status();
            status.set(after);
            return shown(before).equals(shown(after));
          } catch (Exception e) {
            return false;
          }
        });
    return status.get();
  }

  /**
   * What of a status the page shows, without what changes every round (round, its latency,
   * recovery, store, plan, teams, plain demand, and the applications' sinceCheckpointS); with the
   * applications' belowMaxBecause, which the page shows.
   */
  private static List<Object> shown(SchedulerStatus s) {
    List<ApplicationStatus> apps =
        s.applications().stream()
            .map(
                a ->
                    new ApplicationStatus(
                        a.application(),
                        a.minWorkers(),
                        a.maxWorkers(),
                        a.gpusPerWorker(),
                        a.predictedRuntimeS(),
                        a.targetWorkers(),
                        a.targetByNode(),
                        a.actualWorkers(),
                        a.askedWorkers(),
                        a.change(),
                        null,
                        a.team(),
                        a.belowMaxBecause()))
            .toList();
    return java.util.Arrays.asList(
        s.enabled(),
        s.nodes(),
        s.loanedNodes(),
        apps,
        s.reclaimsInFlight(),
        s.reclaimsDone(),
        s.drainingContainers());
  }

  /** GET as a browser asks for a page ({@link ArylMiniCluster#get} asks for JSON). */
  private static Http html(ArylMiniCluster cluster, String path) throws java.io.IOException {
    java.net.HttpURLConnection c =
        (java.net.HttpURLConnection)
            java.net.URI.create(cluster.webAddress() + path).toURL().openConnection();
    c.setRequestProperty("Accept", "text/html");
    int code = c.getResponseCode();
    java.io.InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream();
    return new Http(
        code,
        in == null ? "" : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
  }

  private static Map<String, String> drained(WebElement row) {
    Map<String, String> out = new TreeMap<>();
    for (WebElement li : row.findElements(By.cssSelector(".jobs li[data-application]"))) {
      out.put(
          li.getAttribute("data-application"), li.findElement(By.cssSelector(".action")).getText());
    }
    return out;
  }

  private static int last(ChromeDriver browser, String chart, String series) {
    return Integer.parseInt(
        browser
            .findElement(
                By.cssSelector("#chart-" + chart + " polyline[data-series='" + series + "']"))
            .getAttribute("data-last"));
  }

  private static String textOf(ChromeDriver browser, String css) {
    return browser.findElement(By.cssSelector(css)).getText();
  }

  private static int loaned(ArylMiniCluster cluster) {
    SchedulerStatus s = ArylStatus.orNull(cluster);
    return s == null ? -1 : s.loanedNodes().size();
  }
}
