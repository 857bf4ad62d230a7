/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-dlapublish
 *
 * Publishes each frame's results as one JSON message (docs/publish.md, the schema in
 * docs/publish.schema.json): JSON lines to a file (method=file) or messages to an MQTT broker
 * (method=mqtt, libmosquitto). A passthrough GstBaseTransform: buffers go on untouched and at
 * once; the streaming thread only copies the results out of the metas into a bounded queue, and
 * a thread of its own publishes them. A slow or absent broker never holds the video: the oldest
 * messages are dropped and counted (`stats`), and each outage is one bus warning.
 *
 *   ... ! dladetect ... ! dlatrack ! dlainfer inference-region=roi-list ... !
 *       dlapublish method=mqtt address=broker:1883 topic=site1/cam1 ! fakesink
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include <memory>
#include <string>

#include "gst/gstdlapublish.h"
#include "gst/publish/frame_reader.h"
#include "gst/publish/publish_settings.h"
#include "gst/publish/publisher.h"

GST_DEBUG_CATEGORY_STATIC (gst_dla_publish_debug);
#define GST_CAT_DEFAULT gst_dla_publish_debug

using dlainfer::publish::Method;
using dlainfer::publish::PublishSettings;

enum {
  PROP_0,
  PROP_METHOD,
  PROP_FILE_PATH,
  PROP_ADDRESS,
  PROP_TOPIC,
  PROP_CLIENT_ID,
  PROP_QOS,
  PROP_KEEP_ALIVE,
  PROP_CREDENTIALS_FILE,
  PROP_TLS_CA_FILE,
  PROP_TLS_CERT_FILE,
  PROP_TLS_KEY_FILE,
  PROP_QUEUE_SIZE,
  PROP_MAX_RECONNECT_INTERVAL,
  PROP_DRAIN_TIMEOUT,
  PROP_SOURCE,
  PROP_STATS,
};

namespace {

/* What the element keeps: the settings (object lock), the stream's, the publisher (start..stop). */
struct PublishState {
  PublishSettings settings;
  std::string stream_id;
  gint width = 0, height = 0;
  std::unique_ptr<dlainfer::publish::Publisher> publisher;
  dlainfer::publish::PublishCounts last; /* the counts at the last stop */
  dlainfer::objects::CollectedObjects scratch;
};

}  // namespace

struct _GstDlaPublish {
  GstBaseTransform parent;
  PublishState *state;
};

G_DEFINE_TYPE (GstDlaPublish, gst_dla_publish, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (dla_publish, "dlapublish", GST_RANK_NONE, GST_TYPE_DLA_PUBLISH);

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GType method_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {int (Method::kFile), "JSON lines appended to file-path", "file"},
      {int (Method::kMqtt), "MQTT messages to the broker at address, on topic", "mqtt"},
      {0, nullptr, nullptr}};
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstDlaPublishMethod", values));
  return type;
}

static GstStructure *stats_structure (const dlainfer::publish::PublishCounts &c)
{
  return gst_structure_new (
      "dlapublish-stats", "frames", G_TYPE_UINT64, c.frames, "published", G_TYPE_UINT64, c.published,
      "dropped", G_TYPE_UINT64, c.dropped (), "dropped-queue-full", G_TYPE_UINT64, c.dropped_queue_full,
      "dropped-failed", G_TYPE_UINT64, c.dropped_failed, "dropped-lost", G_TYPE_UINT64, c.dropped_lost,
      "dropped-at-stop", G_TYPE_UINT64, c.dropped_at_stop, "queued", G_TYPE_UINT64, c.queued, "in-flight",
      G_TYPE_UINT64, c.in_flight, "max-queued", G_TYPE_UINT64, c.max_queued, "connects", G_TYPE_UINT64,
      c.connects, "outages", G_TYPE_UINT64, c.outages, "connected", G_TYPE_BOOLEAN, gboolean (c.up), nullptr);
}

static std::string *string_field (PublishSettings &s, guint id)
{
  switch (id) {
    case PROP_FILE_PATH:
      return &s.file_path;
    case PROP_ADDRESS:
      return &s.address;
    case PROP_TOPIC:
      return &s.topic;
    case PROP_CLIENT_ID:
      return &s.client_id;
    case PROP_CREDENTIALS_FILE:
      return &s.credentials_file;
    case PROP_TLS_CA_FILE:
      return &s.tls_ca_file;
    case PROP_TLS_CERT_FILE:
      return &s.tls_cert_file;
    case PROP_TLS_KEY_FILE:
      return &s.tls_key_file;
    case PROP_SOURCE:
      return &s.source;
    default:
      return nullptr;
  }
}

static unsigned *uint_field (PublishSettings &s, guint id)
{
  switch (id) {
    case PROP_KEEP_ALIVE:
      return &s.keep_alive;
    case PROP_QUEUE_SIZE:
      return &s.queue_size;
    case PROP_MAX_RECONNECT_INTERVAL:
      return &s.max_reconnect_interval;
    case PROP_DRAIN_TIMEOUT:
      return &s.drain_timeout;
    default:
      return nullptr;
  }
}

/* Every setting is read at start: above READY a change would silently not apply, so it is refused. */
static void gst_dla_publish_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  GstDlaPublish *self = GST_DLA_PUBLISH (object);
  if (GST_STATE (self) > GST_STATE_READY) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
                         ("%s cannot change while running: set it before the pipeline starts", pspec->name),
                         (nullptr));
    return;
  }
  GST_OBJECT_LOCK (self);
  PublishSettings &s = self->state->settings;
  if (std::string *str = string_field (s, id)) {
    const gchar *v = g_value_get_string (value);
    *str = v ? v : "";
  } else if (unsigned *u = uint_field (s, id)) {
    *u = g_value_get_uint (value);
  } else if (id == PROP_METHOD) {
    s.method = Method (g_value_get_enum (value));
  } else if (id == PROP_QOS) {
    s.qos = int (g_value_get_uint (value));
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void gst_dla_publish_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  GstDlaPublish *self = GST_DLA_PUBLISH (object);
  if (id == PROP_STATS) { /* the publisher's own lock; start and stop run on the state-change thread */
    GST_OBJECT_LOCK (self);
    const auto *p = self->state->publisher.get ();
    dlainfer::publish::PublishCounts c = p ? p->counts () : self->state->last;
    GST_OBJECT_UNLOCK (self);
    g_value_take_boxed (value, stats_structure (c));
    return;
  }
  GST_OBJECT_LOCK (self);
  PublishSettings &s = self->state->settings;
  if (std::string *str = string_field (s, id)) {
    g_value_set_string (value, str->empty () ? nullptr : str->c_str ());
  } else if (unsigned *u = uint_field (s, id)) {
    g_value_set_uint (value, *u);
  } else if (id == PROP_METHOD) {
    g_value_set_enum (value, int (s.method));
  } else if (id == PROP_QOS) {
    g_value_set_uint (value, guint (s.qos));
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void report (GstDlaPublish *self, dlainfer::publish::Report kind, const std::string &text)
{
  if (kind == dlainfer::publish::Report::kWarning)
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE, ("%s", text.c_str ()), (nullptr));
  else
    GST_ELEMENT_INFO (self, RESOURCE, WRITE, ("%s", text.c_str ()), (nullptr));
}

static gboolean gst_dla_publish_start (GstBaseTransform *trans)
{
  GstDlaPublish *self = GST_DLA_PUBLISH (trans);
  GST_OBJECT_LOCK (self);
  const PublishSettings s = self->state->settings;
  GST_OBJECT_UNLOCK (self);
  dlainfer::publish::Endpoint endpoint;
  dlainfer::publish::Credentials credentials;
  std::string error = dlainfer::publish::check_settings (s, &endpoint, &credentials);
  std::unique_ptr<dlainfer::publish::Transport> transport;
  if (error.empty () && s.method == Method::kFile) {
    transport = dlainfer::publish::make_file_transport (s.file_path);
    error = transport->connect (); /* a file that cannot be opened never will be */
  } else if (error.empty ()) {
    transport = dlainfer::publish::make_mqtt_transport (s, endpoint, credentials, &error);
  }
  if (!error.empty ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", error.c_str ()), (nullptr));
    return FALSE;
  }
  auto publisher = std::make_unique<dlainfer::publish::Publisher> (
      std::move (transport), s.queue_size, s.max_reconnect_interval, s.source,
      [self] (dlainfer::publish::Report kind, const std::string &text) { report (self, kind, text); });
  GST_OBJECT_LOCK (self);
  self->state->publisher = std::move (publisher);
  self->state->stream_id.clear ();
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean gst_dla_publish_stop (GstBaseTransform *trans)
{
  GstDlaPublish *self = GST_DLA_PUBLISH (trans);
  GST_OBJECT_LOCK (self);
  std::unique_ptr<dlainfer::publish::Publisher> publisher = std::move (self->state->publisher);
  GST_OBJECT_UNLOCK (self);
  if (!publisher)
    return TRUE;
  publisher->stop ();
  const dlainfer::publish::PublishCounts c = publisher->counts ();
  GST_OBJECT_LOCK (self);
  self->state->last = c;
  GST_OBJECT_UNLOCK (self);
  if (c.dropped_at_stop)
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
                         ("%" G_GUINT64_FORMAT " message(s) were still unpublished at stop and are dropped "
                          "(the broker was slow or away: raise drain-timeout to wait longer at EOS)",
                          c.dropped_at_stop),
                         (nullptr));
  return TRUE;
}

static gboolean gst_dla_publish_set_caps (GstBaseTransform *trans, GstCaps *incaps, GstCaps *)
{
  GstDlaPublish *self = GST_DLA_PUBLISH (trans);
  GstVideoInfo info;
  const bool video = gst_video_info_from_caps (&info, incaps);
  self->state->width = video ? GST_VIDEO_INFO_WIDTH (&info) : 0;
  self->state->height = video ? GST_VIDEO_INFO_HEIGHT (&info) : 0;
  return TRUE;
}

/* The stream's id names it in the messages unless `source` does; EOS waits for the queue. */
static gboolean gst_dla_publish_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstDlaPublish *self = GST_DLA_PUBLISH (trans);
  PublishState &st = *self->state;
  if (GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START) {
    const gchar *id = nullptr;
    gst_event_parse_stream_start (event, &id);
    GST_OBJECT_LOCK (self);
    if (st.publisher && st.settings.source.empty ())
      st.publisher->set_source (id ? id : "");
    GST_OBJECT_UNLOCK (self);
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && st.publisher) {
    GST_OBJECT_LOCK (self);
    const unsigned timeout = st.settings.drain_timeout;
    GST_OBJECT_UNLOCK (self);
    if (!st.publisher->drain (timeout))
      GST_DEBUG_OBJECT (self, "EOS: the queue did not drain in %u ms", timeout);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_dla_publish_parent_class)->sink_event (trans, event);
}

static GstFlowReturn gst_dla_publish_transform_ip (GstBaseTransform *trans, GstBuffer *buffer)
{
  GstDlaPublish *self = GST_DLA_PUBLISH (trans);
  PublishState &st = *self->state;
  if (!st.publisher)
    return GST_FLOW_OK;
  dlainfer::publish::FrameRecord record = st.publisher->acquire ();
  dlainfer::publish::read_frame (buffer, &st.scratch, &record);
  record.width = st.width;
  record.height = st.height;
  st.publisher->push (std::move (record));
  return GST_FLOW_OK;
}

static void gst_dla_publish_finalize (GObject *object)
{
  delete GST_DLA_PUBLISH (object)->state;
  G_OBJECT_CLASS (gst_dla_publish_parent_class)->finalize (object);
}

static void gst_dla_publish_init (GstDlaPublish *self)
{
  self->state = new PublishState ();
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

static void install_string (GObjectClass *oc, guint id, const char *name, const char *nick, const char *blurb,
                            const char *def)
{
  const auto flags = GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  g_object_class_install_property (oc, id, g_param_spec_string (name, nick, blurb, def, flags));
}

static void install_uint (GObjectClass *oc, guint id, const char *name, const char *nick, const char *blurb,
                          guint min, guint max, guint def)
{
  const auto flags = GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  g_object_class_install_property (oc, id, g_param_spec_uint (name, nick, blurb, min, max, def, flags));
}

static void install_properties (GObjectClass *oc)
{
  const PublishSettings d;
  g_object_class_install_property (
      oc, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Where the messages go", method_type (), int (d.method),
                         GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  install_string (oc, PROP_FILE_PATH, "file-path", "File path",
                  "method=file: the file JSON lines are appended to (stdout: the standard output)",
                  d.file_path.c_str ());
  install_string (oc, PROP_ADDRESS, "address", "Address",
                  "method=mqtt: the broker as host:port (port 1883, 8883 with TLS, when left out)", nullptr);
  install_string (oc, PROP_TOPIC, "topic", "Topic",
                  "method=mqtt: the topic every message goes to (no wildcard)", nullptr);
  install_string (oc, PROP_CLIENT_ID, "client-id", "Client id",
                  "method=mqtt: the MQTT client id (null: the library makes a random one)", nullptr);
  install_uint (oc, PROP_QOS, "qos", "QoS",
                "method=mqtt: 0 (at most once) or 1 (at least once: a message counts as published when the "
                "broker acknowledged it)",
                0, 1, guint (d.qos));
  install_uint (oc, PROP_KEEP_ALIVE, "keep-alive", "Keep-alive",
                "method=mqtt: seconds between the client's pings when idle", 5, 3600, d.keep_alive);
  install_string (
      oc, PROP_CREDENTIALS_FILE, "credentials-file", "Credentials file",
      "method=mqtt: a file with the lines username=NAME and password=SECRET (never on the command "
      "line); null: no credentials",
      nullptr);
  install_string (oc, PROP_TLS_CA_FILE, "tls-ca-file", "TLS CA file",
                  "method=mqtt: PEM file of the CA that signed the broker's certificate; set: TLS on",
                  nullptr);
  install_string (
      oc, PROP_TLS_CERT_FILE, "tls-cert-file", "TLS certificate file",
      "method=mqtt: the client's PEM certificate, for brokers that require one (with tls-key-file)", nullptr);
  install_string (oc, PROP_TLS_KEY_FILE, "tls-key-file", "TLS key file",
                  "method=mqtt: the client certificate's PEM key, unencrypted", nullptr);
  install_uint (oc, PROP_QUEUE_SIZE, "queue-size", "Queue size",
                "Messages waiting to be published at most; when full the oldest is dropped and counted", 1,
                1000000, d.queue_size);
  install_uint (oc, PROP_MAX_RECONNECT_INTERVAL, "max-reconnect-interval", "Maximum reconnect interval",
                "method=mqtt: seconds between connect attempts at most (from 0.25 s, doubling)", 1, 300,
                d.max_reconnect_interval);
  install_uint (oc, PROP_DRAIN_TIMEOUT, "drain-timeout", "Drain timeout",
                "Milliseconds EOS waits for the queued messages to be published; what is left at stop is "
                "dropped and counted",
                0, 600000, d.drain_timeout);
  install_string (oc, PROP_SOURCE, "source", "Source",
                  "The stream's name in every message (null: the stream id of its stream-start event)",
                  nullptr);
  g_object_class_install_property (
      oc, PROP_STATS,
      g_param_spec_boxed (
          "stats", "Statistics",
          "Counts since start: frames, published, dropped (= dropped-queue-full + dropped-failed "
          "+ dropped-lost + dropped-at-stop), queued, in-flight, max-queued, connects, outages; "
          "connected",
          GST_TYPE_STRUCTURE, GParamFlags (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

static void gst_dla_publish_class_init (GstDlaPublishClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *bc = GST_BASE_TRANSFORM_CLASS (klass);
  GST_DEBUG_CATEGORY_INIT (gst_dla_publish_debug, "dlapublish", 0, "Results to a file or an MQTT broker");
  oc->set_property = gst_dla_publish_set_property;
  oc->get_property = gst_dla_publish_get_property;
  oc->finalize = gst_dla_publish_finalize;
  install_properties (oc);
  gst_element_class_add_static_pad_template (ec, &sink_template);
  gst_element_class_add_static_pad_template (ec, &src_template);
  gst_element_class_set_static_metadata (
      ec, "DLA results publisher", "Filter/Analyzer/Video",
      "Publishes each frame's detections, tracking ids and classifications as JSON to a file or an MQTT "
      "broker, "
      "off the streaming thread, dropping (and counting) the oldest when the broker is slow or away",
      "gst-dlainfer developers");
  bc->start = GST_DEBUG_FUNCPTR (gst_dla_publish_start);
  bc->stop = GST_DEBUG_FUNCPTR (gst_dla_publish_stop);
  bc->set_caps = GST_DEBUG_FUNCPTR (gst_dla_publish_set_caps);
  bc->sink_event = GST_DEBUG_FUNCPTR (gst_dla_publish_sink_event);
  bc->transform_ip = GST_DEBUG_FUNCPTR (gst_dla_publish_transform_ip);
  gst_type_mark_as_plugin_api (method_type (), GstPluginAPIFlags (0));
}
