package io.aryl.yarnapp;

import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;

/**
 * A file the client staged for the application's containers (a worker's or a replica's), as it
 * travels to the ApplicationMaster in the spec's JSON: the name it has in a container's working
 * directory, its URI in the staging directory, and the size and modification time YARN checks it by
 * when it localises it.
 */
public record StagedFile(String name, String uri, long size, long timestamp) {

  /** The files as the local resources of a container, by name; a map the caller may add to. */
  public static Map<String, LocalResource> localResources(List<StagedFile> files) {
    Map<String, LocalResource> out = new HashMap<>();
    for (StagedFile f : files) {
      out.put(
          f.name(),
          LocalResource.newInstance(
              URL.fromURI(URI.create(f.uri())),
              LocalResourceType.FILE,
              LocalResourceVisibility.APPLICATION,
              f.size(),
              f.timestamp()));
    }
    return out;
  }
}
