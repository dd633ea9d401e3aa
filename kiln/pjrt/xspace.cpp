#include "kiln/pjrt/xspace.h"

#include <map>

#include "kiln/pjrt/protobuf_writer.h"

namespace kiln::pjrt {

namespace {

// Field numbers of xplane.proto's messages, those kiln writes.
enum XSpaceField { kSpacePlanes = 1 };
enum XPlaneField { kPlaneName = 2, kPlaneLines = 3, kPlaneEventMetadata = 4, kPlaneStatMetadata = 5 };
enum XLineField { kLineId = 1, kLineName = 2, kLineTimestampNs = 3, kLineEvents = 4, kLineDurationPs = 9,
                  kLineDisplayId = 10 };
enum XEventField { kEventMetadataId = 1, kEventOffsetPs = 2, kEventDurationPs = 3, kEventStats = 4 };
enum XStatField { kStatMetadataId = 1, kStatStrValue = 5 };
enum XMetadataField { kMetadataId = 1, kMetadataName = 2 };  // XEventMetadata and XStatMetadata alike
enum MapEntryField { kMapKey = 1, kMapValue = 2 };

constexpr int64_t kPsPerNs = 1000;

// Names numbered from 1 in order of first use: events (and stats) of one name
// share one XEventMetadata (XStatMetadata) that the plane lists once.
class NameIds {
 public:
  int64_t operator()(std::string_view name) {
    auto it = ids_.find(name);
    if (it == ids_.end()) it = ids_.emplace(std::string(name), static_cast<int64_t>(ids_.size()) + 1).first;
    return it->second;
  }
  // The plane's map<int64, XEventMetadata or XStatMetadata> field.
  void writeMetadata(ProtoWriter& plane, int field) const {
    for (const auto& [name, id] : ids_) {
      ProtoWriter metadata;
      metadata.integer(kMetadataId, id);
      metadata.bytes(kMetadataName, name);
      ProtoWriter entry;
      entry.integer(kMapKey, id);
      entry.message(kMapValue, metadata);
      plane.message(field, entry);
    }
  }

 private:
  std::map<std::string, int64_t, std::less<>> ids_;
};

ProtoWriter stringStat(int64_t metadataId, std::string_view value) {
  ProtoWriter stat;
  stat.integer(kStatMetadataId, metadataId);
  stat.bytes(kStatStrValue, value);
  return stat;
}

}  // namespace

std::string xspaceFromTrace(const std::vector<trace::Event>& events,
                            const std::vector<std::pair<uint32_t, std::string>>& threads, const ProfileWindow& window) {
  std::map<uint32_t, std::string_view> threadNames(threads.begin(), threads.end());
  NameIds eventIds, statIds;
  ProtoWriter plane;  // its id stays 0: the tools number custom devices from their planes' ids
  plane.bytes(kPlaneName, kXSpacePlaneName);
  // A line per thread: the events come grouped by thread, each group in order of start.
  for (size_t i = 0; i < events.size();) {
    uint32_t thread = events[i].thread;
    ProtoWriter line;
    bool empty = true;
    for (; i < events.size() && events[i].thread == thread; ++i) {
      const trace::Event& slice = events[i];
      if (slice.startNs < window.startNs || slice.startNs > window.stopNs) continue;
      ProtoWriter event;
      event.integer(kEventMetadataId, eventIds(slice.name));
      event.integer(kEventOffsetPs, (slice.startNs - window.startNs) * kPsPerNs);
      event.integer(kEventDurationPs, slice.durationNs * kPsPerNs);
      event.message(kEventStats, stringStat(statIds("category"), slice.category));
      for (const auto& [key, value] : slice.args) event.message(kEventStats, stringStat(statIds(key), value));
      line.message(kLineEvents, event);
      empty = false;
    }
    if (empty) continue;
    auto name = threadNames.find(thread);
    line.integer(kLineId, thread);
    line.integer(kLineDisplayId, thread);
    line.bytes(kLineName, name != threadNames.end() ? name->second : "thread " + std::to_string(thread));
    line.integer(kLineTimestampNs, window.originUnixNs + window.startNs);
    line.integer(kLineDurationPs, (window.stopNs - window.startNs) * kPsPerNs);
    plane.message(kPlaneLines, line);
  }
  eventIds.writeMetadata(plane, kPlaneEventMetadata);
  statIds.writeMetadata(plane, kPlaneStatMetadata);
  ProtoWriter space;
  space.message(kSpacePlanes, plane);
  return space.data();
}

}  // namespace kiln::pjrt
