/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tests/nvmm/stand_in/nvmm_convert.h"

#include <dlfcn.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <cstdlib>

namespace nvmm_stand_in {
namespace {

/* ---- the memory: mapping it gives its NvBufSurface ---- */

struct SurfaceMemory {
  GstMemory mem;
  nvmm::NvBufSurface *surf;
};

struct NvmmStandInAllocator {
  GstAllocator parent;
  uint32_t width, height;
  int color_format, layout;
};
struct NvmmStandInAllocatorClass {
  GstAllocatorClass parent_class;
};

GType surface_allocator_get_type ();
G_DEFINE_TYPE (NvmmStandInAllocator, surface_allocator, GST_TYPE_ALLOCATOR)

GstMemory *surface_alloc (GstAllocator *allocator, gsize, GstAllocationParams *)
{
  NvmmStandInAllocator *a = reinterpret_cast<NvmmStandInAllocator *> (allocator);
  nvmm::NvBufSurface *surf = nullptr;
  if (!calls () || calls ()->create (a->width, a->height, a->color_format, a->layout, &surf) != 0)
    return nullptr;
  SurfaceMemory *m = g_new0 (SurfaceMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (m), GST_MEMORY_FLAG_NO_SHARE, allocator, nullptr,
                   sizeof (nvmm::NvBufSurface), 0, 0, sizeof (nvmm::NvBufSurface));
  m->surf = surf;
  return GST_MEMORY_CAST (m);
}

void surface_free (GstAllocator *, GstMemory *mem)
{
  SurfaceMemory *m = reinterpret_cast<SurfaceMemory *> (mem);
  /* A surface still registered or EGL-mapped here is a violation the stand-in counts. */
  calls ()->destroy (m->surf);
  g_free (m);
}

gpointer surface_map (GstMemory *mem, gsize, GstMapFlags)
{
  return reinterpret_cast<SurfaceMemory *> (mem)->surf;
}

void surface_unmap (GstMemory *) {}

void surface_allocator_class_init (NvmmStandInAllocatorClass *klass)
{
  GstAllocatorClass *ac = GST_ALLOCATOR_CLASS (klass);
  ac->alloc = surface_alloc;
  ac->free = surface_free;
}

void surface_allocator_init (NvmmStandInAllocator *a)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (a);
  alloc->mem_type = "NVMM";
  alloc->mem_map = surface_map;
  alloc->mem_unmap = surface_unmap;
  GST_OBJECT_FLAG_SET (a, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/* ---- the element ---- */

struct NvmmStandInConvert {
  GstBaseTransform parent;
  gboolean block_linear;
  guint pool_size;
  GstVideoInfo info;
  GstBufferPool *pool;
};
struct NvmmStandInConvertClass {
  GstBaseTransformClass parent_class;
};

enum { PROP_0, PROP_BLOCK_LINEAR, PROP_POOL_SIZE };

GType convert_get_type ();
G_DEFINE_TYPE (NvmmStandInConvert, convert, GST_TYPE_BASE_TRANSFORM)

#define CONVERT_FORMATS "{ NV12, RGBA }"
GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (CONVERT_FORMATS)));
GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:NVMM", CONVERT_FORMATS)));

GstCaps *convert_transform_caps (GstBaseTransform *, GstPadDirection direction, GstCaps *caps,
                                 GstCaps *filter)
{
  GstCaps *out = gst_caps_copy (caps);
  for (guint i = 0; i < gst_caps_get_size (out); ++i)
    gst_caps_set_features (out, i,
                           direction == GST_PAD_SINK ? gst_caps_features_new ("memory:NVMM", nullptr)
                                                     : gst_caps_features_new_empty ());
  if (filter) {
    GstCaps *f = gst_caps_intersect_full (filter, out, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (out);
    out = f;
  }
  return out;
}

void drop_pool (NvmmStandInConvert *self)
{
  if (!self->pool)
    return;
  gst_buffer_pool_set_active (self->pool, FALSE);
  gst_object_unref (self->pool);
  self->pool = nullptr;
}

gboolean convert_set_caps (GstBaseTransform *trans, GstCaps *incaps, GstCaps *)
{
  NvmmStandInConvert *self = reinterpret_cast<NvmmStandInConvert *> (trans);
  if (!calls () || !gst_video_info_from_caps (&self->info, incaps))
    return FALSE;
  drop_pool (self);
  NvmmStandInAllocator *alloc =
      static_cast<NvmmStandInAllocator *> (g_object_new (surface_allocator_get_type (), nullptr));
  gst_object_ref_sink (alloc);
  alloc->width = uint32_t (GST_VIDEO_INFO_WIDTH (&self->info));
  alloc->height = uint32_t (GST_VIDEO_INFO_HEIGHT (&self->info));
  alloc->color_format = GST_VIDEO_INFO_FORMAT (&self->info) == GST_VIDEO_FORMAT_NV12
                            ? nvmm::NVBUF_COLOR_FORMAT_NV12
                            : nvmm::NVBUF_COLOR_FORMAT_RGBA;
  alloc->layout = self->block_linear ? nvmm::NVBUF_LAYOUT_BLOCK_LINEAR : nvmm::NVBUF_LAYOUT_PITCH;
  self->pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (self->pool);
  GstCaps *outcaps = gst_caps_copy (incaps);
  gst_caps_set_features (outcaps, 0, gst_caps_features_new ("memory:NVMM", nullptr));
  gst_buffer_pool_config_set_params (config, outcaps, sizeof (nvmm::NvBufSurface), self->pool_size,
                                     self->pool_size);
  gst_buffer_pool_config_set_allocator (config, GST_ALLOCATOR_CAST (alloc), nullptr);
  gst_caps_unref (outcaps);
  gst_object_unref (alloc);
  return gst_buffer_pool_set_config (self->pool, config) && gst_buffer_pool_set_active (self->pool, TRUE);
}

GstFlowReturn convert_prepare_output_buffer (GstBaseTransform *trans, GstBuffer *in, GstBuffer **out)
{
  NvmmStandInConvert *self = reinterpret_cast<NvmmStandInConvert *> (trans);
  /* Blocks while every surface is downstream, as a decoder's capture queue does. */
  const GstFlowReturn ret = gst_buffer_pool_acquire_buffer (self->pool, out, nullptr);
  if (ret != GST_FLOW_OK)
    return ret;
  gst_buffer_copy_into (*out, in, GstBufferCopyFlags (GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS), 0,
                        -1);
  return GST_FLOW_OK;
}

GstFlowReturn convert_transform (GstBaseTransform *trans, GstBuffer *in, GstBuffer *out)
{
  NvmmStandInConvert *self = reinterpret_cast<NvmmStandInConvert *> (trans);
  GstVideoFrame frame;
  if (!gst_video_frame_map (&frame, &self->info, in, GST_MAP_READ))
    return GST_FLOW_ERROR;
  const uint8_t *planes[3] = {nullptr, nullptr, nullptr};
  int32_t pitches[3] = {0, 0, 0};
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); ++p) {
    planes[p] = static_cast<const uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (&frame, p));
    pitches[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
  }
  SurfaceMemory *m = reinterpret_cast<SurfaceMemory *> (gst_buffer_peek_memory (out, 0));
  const int rc = calls ()->write (m->surf, planes, pitches);
  gst_video_frame_unmap (&frame);
  if (rc != 0) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("stand-in write: %s", calls ()->last_refusal ()), (nullptr));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

gboolean convert_stop (GstBaseTransform *trans)
{
  drop_pool (reinterpret_cast<NvmmStandInConvert *> (trans));
  return TRUE;
}

void convert_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  NvmmStandInConvert *self = reinterpret_cast<NvmmStandInConvert *> (object);
  if (id == PROP_BLOCK_LINEAR)
    self->block_linear = g_value_get_boolean (value);
  else if (id == PROP_POOL_SIZE)
    self->pool_size = g_value_get_uint (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

void convert_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  NvmmStandInConvert *self = reinterpret_cast<NvmmStandInConvert *> (object);
  if (id == PROP_BLOCK_LINEAR)
    g_value_set_boolean (value, self->block_linear);
  else if (id == PROP_POOL_SIZE)
    g_value_set_uint (value, self->pool_size);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

void convert_finalize (GObject *object)
{
  drop_pool (reinterpret_cast<NvmmStandInConvert *> (object));
  G_OBJECT_CLASS (convert_parent_class)->finalize (object);
}

void convert_class_init (NvmmStandInConvertClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  oc->set_property = convert_set_property;
  oc->get_property = convert_get_property;
  oc->finalize = convert_finalize;
  g_object_class_install_property (
      oc, PROP_BLOCK_LINEAR,
      g_param_spec_boolean ("block-linear", "Block linear",
                            "Block-linear surfaces (CUDA arrays), else pitch-linear", TRUE,
                            GParamFlags (G_PARAM_READWRITE)));
  g_object_class_install_property (oc, PROP_POOL_SIZE,
                                   g_param_spec_uint ("pool-size", "Pool size", "Surfaces in the fixed pool",
                                                      1, 64, 6, GParamFlags (G_PARAM_READWRITE)));
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  gst_element_class_add_static_pad_template (ec, &sink_template);
  gst_element_class_add_static_pad_template (ec, &src_template);
  gst_element_class_set_static_metadata (ec, "NVMM stand-in converter", "Filter/Converter/Video",
                                         "Tests only: system-memory frames into stand-in NVMM surfaces",
                                         "gst-dlainfer tests");
  GstBaseTransformClass *tc = GST_BASE_TRANSFORM_CLASS (klass);
  tc->transform_caps = convert_transform_caps;
  tc->set_caps = convert_set_caps;
  tc->prepare_output_buffer = convert_prepare_output_buffer;
  tc->transform = convert_transform;
  tc->stop = convert_stop;
  tc->passthrough_on_same_caps = FALSE;
}

void convert_init (NvmmStandInConvert *self)
{
  self->block_linear = TRUE;
  self->pool_size = 6;
}

}  // namespace

const Calls *calls ()
{
  static const Calls *loaded = [] () -> const Calls * {
    const char *path = std::getenv ("DLAINFER_NVBUFSURFACE_LIBRARY");
    void *h = path ? dlopen (path, RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (!h || !dlsym (h, "nvmmStandInName"))
      return nullptr;
    static Calls c;
    c.create = reinterpret_cast<decltype (c.create)> (dlsym (h, "nvmmStandInCreate"));
    c.write = reinterpret_cast<decltype (c.write)> (dlsym (h, "nvmmStandInWrite"));
    c.destroy = reinterpret_cast<decltype (c.destroy)> (dlsym (h, "nvmmStandInDestroy"));
    c.counters = reinterpret_cast<decltype (c.counters)> (dlsym (h, "nvmmStandInCounters"));
    c.last_refusal = reinterpret_cast<decltype (c.last_refusal)> (dlsym (h, "nvmmStandInLastRefusal"));
    return c.create && c.write && c.destroy && c.counters && c.last_refusal ? &c : nullptr;
  }();
  return loaded;
}

bool register_convert ()
{
  return calls () && gst_element_register (nullptr, "nvmmstandinconvert", GST_RANK_NONE, convert_get_type ());
}

}  // namespace nvmm_stand_in
