package io.aryl.sls;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a run reads back from SLS's own outputs: {@code realtimetrack.json}, a line per second of
 * SLS's scheduler timers (each the mean, in ms, of the timer's last calls), and {@code
 * jobruntime.csv}, a line per finished AM.
 */
record SlsOutputs(List<Double> allocateMs, List<Double> nodeUpdateMs, int jobsInJobRuntime) {
  static final String ALLOCATE = "scheduler.allocate.timecost";
  static final String NODE_UPDATE = "scheduler.handle-NODE_UPDATE.timecost";

  static SlsOutputs read(Path out) throws IOException {
    List<Double> allocate = new ArrayList<>();
    List<Double> nodeUpdate = new ArrayList<>();
    Path track = out.resolve("realtimetrack.json");
    if (Files.exists(track)) {
      ObjectMapper json = new ObjectMapper();
      for (String line : Files.readAllLines(track)) {
        // SLS writes "[" then one object per line, each after a comma, and "]" when it is torn
        // down.
        String object = line.strip().replaceFirst("^[\\[,]+", "").replaceFirst("]$", "");
        if (object.isEmpty()) {
          continue;
        }
        JsonNode sample;
        try {
          sample = json.readTree(object);
        } catch (IOException e) {
          continue; // the line being written when SLS stopped
        }
        // Seconds with no call report 0: they are idle seconds, not fast calls.
        positive(sample.path(ALLOCATE), allocate);
        positive(sample.path(NODE_UPDATE), nodeUpdate);
      }
    }
    Path runtimes = out.resolve("jobruntime.csv");
    int jobs = Files.exists(runtimes) ? Math.max(0, Files.readAllLines(runtimes).size() - 1) : 0;
    return new SlsOutputs(allocate, nodeUpdate, jobs);
  }

  private static void positive(JsonNode v, List<Double> into) {
    if (v.isNumber() && v.asDouble() > 0) {
      into.add(v.asDouble());
    }
  }
}
