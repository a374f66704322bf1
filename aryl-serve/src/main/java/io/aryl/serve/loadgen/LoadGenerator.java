package io.aryl.serve.loadgen;

import io.aryl.api.ArylJson;
import io.aryl.api.serve.ServeStatus;
import io.aryl.serve.loadgen.RequestRecord.Outcome;
import java.io.BufferedWriter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends requests at given arrival times (open loop: a request is sent when it is due, whether or
 * not earlier ones were answered) to the endpoints a service's status lists, round robin, and
 * records each one's latency and outcome. The endpoint list is read from the status URL before the
 * first request and every second after.
 */
public final class LoadGenerator {
  /** How often the endpoint list is read again. */
  public static final Duration REFRESH = Duration.ofSeconds(1);

  private final String statusUrl;
  private final String path;
  private final String body;
  private final Duration timeout;
  private final HttpClient http;
  private volatile List<String> endpoints = List.of();
  private volatile int maxEndpoints;

  /**
   * @param statusUrl the service's {@code /status.json}
   * @param path the request path on a replica, e.g. {@code /predict}
   * @param body each request's body (JSON); sent with POST
   * @param timeout how long a request may take before it counts as a timeout
   */
  public LoadGenerator(String statusUrl, String path, String body, Duration timeout) {
    this.statusUrl = statusUrl;
    this.path = path;
    this.body = body;
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .executor(
                Executors.newFixedThreadPool(
                    4,
                    r -> {
                      Thread t = new Thread(r, "aryl-loadgen-http");
                      t.setDaemon(true);
                      return t;
                    }))
            .build();
  }

  /** The most endpoints the status listed at once during the last run. */
  public int maxEndpoints() {
    return maxEndpoints;
  }

  /**
   * Sends one request per arrival time and waits for every answer (or timeout); the records in
   * order of sending, also written to {@code out} as JSON lines when it is not null.
   */
  public List<RequestRecord> run(double[] arrivals, Path out)
      throws IOException, InterruptedException {
    refresh();
    ScheduledExecutorService refresher =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "aryl-loadgen-endpoints");
              t.setDaemon(true);
              return t;
            });
    ScheduledFuture<?> refreshing =
        refresher.scheduleWithFixedDelay(
            this::refreshQuietly, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    ConcurrentLinkedQueue<RequestRecord> done = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    long start = System.nanoTime();
    int next = 0;
    try {
      for (int i = 0; i < arrivals.length; i++) {
        long due = start + (long) (arrivals[i] * 1e9);
        long wait = due - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        List<String> now = endpoints;
        if (now.isEmpty()) {
          done.add(new RequestRecord(i, arrivals[i], 0, Outcome.NO_REPLICA, "", 0));
          continue;
        }
        String replica = now.get(next++ % now.size());
        inFlight.add(send(i, arrivals[i], due, replica, done));
      }
      CompletableFuture.allOf(inFlight.toArray(new CompletableFuture<?>[0]))
          .get(timeout.toMillis() + 10_000, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IOException("requests did not end after their timeout: " + e, e);
    } finally {
      refreshing.cancel(true);
      refresher.shutdownNow();
    }
    List<RequestRecord> records = new ArrayList<>(done);
    records.sort(Comparator.comparingLong(RequestRecord::seq));
    if (out != null) {
      try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
        for (RequestRecord r : records) {
          w.write(ArylJson.write(r));
          w.newLine();
        }
      }
    }
    return records;
  }

  private CompletableFuture<?> send(
      long seq,
      double dueS,
      long dueNanos,
      String replica,
      ConcurrentLinkedQueue<RequestRecord> done) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(replica + path))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .handle(
            (resp, e) -> {
              double ms = (System.nanoTime() - dueNanos) / 1e6;
              if (e == null) {
                int code = resp.statusCode();
                done.add(
                    new RequestRecord(
                        seq,
                        dueS,
                        ms,
                        code / 100 == 2 ? Outcome.OK : Outcome.ERROR,
                        replica,
                        code));
              } else {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                done.add(
                    new RequestRecord(
                        seq,
                        dueS,
                        ms,
                        cause instanceof HttpTimeoutException ? Outcome.TIMEOUT : Outcome.ERROR,
                        replica,
                        0));
              }
              return null;
            });
  }

  private void refreshQuietly() {
    try {
      refresh();
    } catch (IOException e) {
      // keep the last list: the AM may be busy for a moment; the next refresh tries again
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The service's status as its AM wrote it (JSON). */
  public String statusText() throws IOException, InterruptedException {
    HttpResponse<String> r;
    try {
      r =
          http.send(
              HttpRequest.newBuilder(URI.create(statusUrl)).timeout(timeout).GET().build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      // A refused connection's message is null: say what could not be read, and why.
      throw new IOException("cannot read the service's status at " + statusUrl + ": " + e, e);
    }
    if (r.statusCode() != 200) {
      throw new IOException(statusUrl + " answered " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  /** Reads the endpoint list from the service's status. */
  public List<String> refresh() throws IOException, InterruptedException {
    ServeStatus s = ArylJson.read(statusText(), ServeStatus.class);
    endpoints = s.endpoints();
    maxEndpoints = Math.max(maxEndpoints, s.endpoints().size());
    return s.endpoints();
  }
}
