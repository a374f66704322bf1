package io.aryl.sls;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.yarn.sls.conf.SLSConfiguration;

/**
 * Copies of an SLS job trace with every job in one queue, and of a node file with every node in one
 * pool: how a trace written for other queues (Hadoop's samples use {@code sls_queue_1..3}) runs on
 * Aryl's queues unchanged otherwise.
 */
final class TraceRewrite {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TraceRewrite() {}

  /**
   * {@code jobs} with {@code job.queue.name} = {@code queue} in every job, written to {@code to}.
   */
  static Path queue(Path jobs, String queue, Path to) throws IOException {
    return rewrite(jobs, to, job -> job.put(SLSConfiguration.JOB_QUEUE_NAME, queue));
  }

  /**
   * {@code nodes} with the node field {@code "labels"} = {@code label} on every node, written to
   * {@code to}.
   */
  static Path nodeLabel(Path nodes, String label, Path to) throws IOException {
    return rewrite(
        nodes,
        to,
        rack -> {
          for (JsonNode node : rack.path("nodes")) {
            ((ObjectNode) node).put("labels", label);
          }
        });
  }

  private static Path rewrite(Path from, Path to, java.util.function.Consumer<ObjectNode> change)
      throws IOException {
    Files.createDirectories(to.getParent());
    try (MappingIterator<JsonNode> in = JSON.readerFor(JsonNode.class).readValues(from.toFile());
        Writer out = Files.newBufferedWriter(to)) {
      int index = 0;
      // hasNextValue/nextValue, not hasNext/next: those wrap a parse error in an unchecked
      // exception without the file.
      while (in.hasNextValue()) {
        index++;
        JsonNode object = in.nextValue();
        if (!(object instanceof ObjectNode o)) {
          throw new IllegalArgumentException(from + ": object " + index + " is not a JSON object");
        }
        change.accept(o);
        out.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(o));
        out.write('\n');
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(
          from
              + ": not JSON: "
              + e.getOriginalMessage()
              + " at line "
              + e.getLocation().getLineNr());
    }
    return to;
  }
}
