/* flame-changes-panel.c: the "Top Changes" table of a comparison.
 *
 * The report's functions as a sortable column view (before, after, the
 * change and its status as a pill), filtered by the dropdown in its
 * header. The row selected is its "selected-function" property: the
 * window zooms the graph to it. "compact" (a narrow window) keeps three
 * columns: the function with "before → after" under its name, the change
 * with its per cent under it, and the status.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>

#include "flame-change-row.h"
#include "flame-changes-model.h"
#include "flame-changes-panel-private.h"
#include "flame-tree.h"

enum {
  PROP_0,
  PROP_COMPARISON,
  PROP_SELECTED_FUNCTION,
  PROP_COMPACT,
  PROP_PENDING,
  PROP_PILL_WIDTH,
  N_PROPS
};

enum {
  FILTER_CHANGES,
  FILTER_REGRESSIONS,
  FILTER_IMPROVEMENTS,
  FILTER_NEW,
  FILTER_REMOVED,
  FILTER_ALL,
};

/* in the order of FlameChangesKey */
typedef enum
{
  COL_NAME,
  COL_BASELINE,
  COL_CURRENT,
  COL_DELTA_MS,
  COL_DELTA_PCT,
  COL_STATUS,
  N_COLUMNS
} ColumnKind;

G_STATIC_ASSERT ((int) N_COLUMNS == (int) FLAME_CHANGES_N_KEYS);

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FlameChangesPanel, flame_changes_panel, GTK_TYPE_WIDGET)

static const char *
status_pill_label (FlameStatus   status,
                   FlameQuantity quantity)
{
  /* memory and counts grow and shrink, as the legend says */
  gboolean time = quantity == FLAME_QUANTITY_TIME;

  switch (status)
    {
    case FLAME_STATUS_REGRESSION:
      /* Translators: status pill of a regression, keep it short */
      return time ? C_("status", "Slower")
                  /* Translators: status pill of a regression of memory or a count */
                  : C_("status", "More");
    case FLAME_STATUS_IMPROVEMENT:
      /* Translators: status pill of an improvement, keep it short */
      return time ? C_("status", "Faster")
                  /* Translators: status pill of an improvement of memory or a count */
                  : C_("status", "Less");
    case FLAME_STATUS_NEW:
      /* Translators: status pill of a function only the current profile has */
      return C_("status", "New");
    case FLAME_STATUS_REMOVED:
      /* Translators: status pill of a function only the baseline has;
       * the same word as the filter's "Removed" */
      return C_("status", "Removed");
    case FLAME_STATUS_UNCHANGED:
    case FLAME_N_STATUSES:
    default:
      return "";
    }
}

/* "+85.8": the change in per cent, as the report puts it (new and
 * removed functions are +100 and -100: all of it came or went) */
static char *
delta_pct_text (FlameChangeRow *row)
{
  FlameStatus status = flame_change_row_get_status (row);
  gdouble pct = flame_change_row_get_delta_pct (row);

  if (status == FLAME_STATUS_NEW)
    return g_strdup_printf ("%+.1f", 100.0);
  if (status == FLAME_STATUS_REMOVED)
    return g_strdup_printf ("%+.1f", -100.0);
  if (!isfinite (pct))
    return g_strdup ("—");
  return g_strdup_printf ("%+.1f", pct);
}

/* the status cells: one pill, its word the row's, in a box as wide as
 * the widest pill (of a time's and a count's words). GTK 4.8 keeps a
 * column as wide as its cells were when it first measured them, before
 * rows were bound: a cell whose width followed its word cut "Removed"
 * and German "Langsamer". (A stack of all the pills per cell did that
 * too, but with 11 widgets a cell, all measured whenever the column is:
 * 10-20 ms a frame while the table fills.) */
static const char *status_classes[] = { "unchanged", "regression", "improvement", "new",
                                        "removed" };

static void
pill_set_status (GtkWidget    *pill,
                 FlameStatus   status,
                 FlameQuantity quantity)
{
  for (guint i = 0; i < G_N_ELEMENTS (status_classes); i++)
    gtk_widget_remove_css_class (pill, status_classes[i]);
  gtk_label_set_text (GTK_LABEL (pill), status_pill_label (status, quantity));
  gtk_widget_set_visible (pill, status != FLAME_STATUS_UNCHANGED);
  if (status < G_N_ELEMENTS (status_classes))
    gtk_widget_add_css_class (pill, status_classes[status]);
}

static GtkWidget *
pill_new (void)
{
  GtkWidget *pill = gtk_label_new (NULL);

  /* a small coloured pill at the start of its column; none when
   * unchanged */
  gtk_widget_set_halign (pill, GTK_ALIGN_START);
  gtk_widget_set_valign (pill, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (pill, "flame-status");
  gtk_widget_add_css_class (pill, "caption");
  return pill;
}

/* The widest pill, measured in the panel (its style), once per style:
 * see on_pill_style_changed() */
static int
pill_width (FlameChangesPanel *self)
{
  if (self->pill_width > 0)
    return self->pill_width;
  for (FlameStatus status = FLAME_STATUS_REGRESSION; status < FLAME_N_STATUSES; status++)
    for (guint time = 0; time < 2; time++)
      {
        GtkWidget *pill = pill_new ();
        int min = 0;

        pill_set_status (pill, status, time ? FLAME_QUANTITY_TIME : FLAME_QUANTITY_COUNT);
        gtk_widget_set_parent (pill, GTK_WIDGET (self));
        gtk_widget_measure (pill, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
        gtk_widget_unparent (pill);
        self->pill_width = MAX (self->pill_width, min);
      }
  return self->pill_width;
}

/* fonts and the high-contrast style change a pill's width */
static void
on_pill_style_changed (FlameChangesPanel *self)
{
  g_assert (FLAME_IS_CHANGES_PANEL (self));

  self->pill_width = 0;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PILL_WIDTH]);
}

/* The cells of the name and change columns hold a second, smaller line,
 * shown when compact: the columns it stands for are hidden then */
static gboolean
has_second_line (ColumnKind kind)
{
  return kind == COL_NAME || kind == COL_DELTA_MS;
}

/* the fewest characters of a function's name the table shows: 20 (most
 * names whole), 10 in a narrow window */
static gboolean
name_chars_for_compact (GBinding     *binding,
                        const GValue *from,
                        GValue       *to,
                        gpointer      user_data)
{
  g_value_set_int (to, g_value_get_boolean (from) ? 10 : 20);
  return TRUE;
}

/* The name's tooltip: the whole name and its file; the status pill's:
 * the report's word (none for an unchanged function). Asked for when
 * shown: gtk_widget_set_tooltip_text() in cell_bind() asked the display
 * where the pointer is, a round trip to the X server for each row bound. */
static gboolean
cell_query_tooltip (GtkWidget  *label,
                    int         x,
                    int         y,
                    gboolean    keyboard,
                    GtkTooltip *tooltip,
                    gpointer    user_data)
{
  GtkListItem *item = user_data;
  ColumnKind kind = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (label), "flame-column"));
  FlameChangeRow *row = gtk_list_item_get_item (item);

  g_assert (GTK_IS_LIST_ITEM (item));

  if (row == NULL ||
      (kind == COL_STATUS && flame_change_row_get_status (row) == FLAME_STATUS_UNCHANGED))
    return FALSE;
  if (kind == COL_STATUS)
    gtk_tooltip_set_text (tooltip, flame_status_label (flame_change_row_get_status (row)));
  else if (*flame_change_row_get_file (row))
    {
      g_autofree char *tip = g_strdup_printf ("%s\n%s", flame_change_row_get_name (row),
                                              flame_change_row_get_file (row));

      gtk_tooltip_set_text (tooltip, tip);
    }
  else
    gtk_tooltip_set_text (tooltip, flame_change_row_get_name (row));
  return TRUE;
}

static void
cell_setup (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  user_data)
{
  ColumnKind kind = GPOINTER_TO_INT (user_data);
  FlameChangesPanel *self = g_object_get_data (G_OBJECT (factory), "flame-changes-panel");
  GtkWidget *label = gtk_label_new (NULL);

  g_assert (GTK_IS_SIGNAL_LIST_ITEM_FACTORY (factory));
  g_assert (GTK_IS_LIST_ITEM (item));

  switch (kind)
    {
    case COL_NAME:
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
      /* at least this much of a name: the panel widens for it */
      if (self != NULL)
        g_object_bind_property_full (self, "compact", label, "width-chars", G_BINDING_SYNC_CREATE,
                                     name_chars_for_compact, NULL, NULL, NULL);
      break;
    case COL_STATUS:
      g_object_ref_sink (label);
      g_object_unref (label);
      label = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
      gtk_box_append (GTK_BOX (label), pill_new ());
      if (self != NULL)
        g_object_bind_property (self, "pill-width", label, "width-request", G_BINDING_SYNC_CREATE);
      /* as the header's padding (style.css) */
      gtk_widget_set_margin_start (label, 2);
      gtk_widget_set_margin_end (label, 10);
      g_object_set_data (G_OBJECT (label), "flame-column", GINT_TO_POINTER (kind));
      gtk_widget_set_has_tooltip (label, TRUE);
      g_signal_connect (label, "query-tooltip", G_CALLBACK (cell_query_tooltip), item);
      gtk_list_item_set_child (item, label);
      return;
    case COL_BASELINE:
    case COL_CURRENT:
    case COL_DELTA_MS:
    case COL_DELTA_PCT:
    default:
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "numeric");
      break;
    }
  if (kind == COL_NAME)
    {
      g_object_set_data (G_OBJECT (label), "flame-column", GINT_TO_POINTER (kind));
      gtk_widget_set_has_tooltip (label, TRUE);
      g_signal_connect (label, "query-tooltip", G_CALLBACK (cell_query_tooltip), item);
    }
  if (has_second_line (kind))
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      GtkWidget *second = gtk_label_new (NULL);

      gtk_label_set_xalign (GTK_LABEL (second), gtk_label_get_xalign (GTK_LABEL (label)));
      gtk_label_set_ellipsize (GTK_LABEL (second), PANGO_ELLIPSIZE_END);
      gtk_widget_add_css_class (second, "caption");
      gtk_widget_add_css_class (second, "dim-label");
      gtk_widget_add_css_class (second, "numeric");
      gtk_box_append (GTK_BOX (box), label);
      gtk_box_append (GTK_BOX (box), second);
      /* the panel outlives its cells: the binding goes with the label */
      if (self != NULL)
        g_object_bind_property (self, "compact", second, "visible", G_BINDING_SYNC_CREATE);
      label = box;
    }
  /* the cells' padding (style.css): the first column's as its header's */
  gtk_widget_set_margin_start (label, kind == COL_NAME ? 10 : 2);
  gtk_widget_set_margin_end (label, 2);
  gtk_list_item_set_child (item, label);
}

static void
cell_bind (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  ColumnKind kind = GPOINTER_TO_INT (user_data);
  FlameChangesPanel *self = g_object_get_data (G_OBJECT (factory), "flame-changes-panel");
  FlameQuantity q = self != NULL ? self->quantity : FLAME_QUANTITY_TIME;
  GtkWidget *child = gtk_list_item_get_child (item);
  GtkWidget *label = has_second_line (kind) ? gtk_widget_get_first_child (child) : child;
  FlameChangeRow *row = gtk_list_item_get_item (item);
  g_autofree char *text = NULL;
  g_autofree char *second = NULL;
  FlameStatus status;

  g_assert (GTK_IS_SIGNAL_LIST_ITEM_FACTORY (factory));
  g_assert (FLAME_IS_CHANGE_ROW (row));

  status = flame_change_row_get_status (row);
  if (kind == COL_STATUS)
    {
      /* a short word in the pill, the report's term in its tooltip
       * (cell_query_tooltip()) */
      pill_set_status (gtk_widget_get_first_child (child), status, q);
      return;
    }

  switch (kind)
    {
    case COL_NAME:
      text = g_strdup (flame_change_row_get_name (row));
      {
        gdouble before = flame_change_row_get_baseline_ms (row);
        gdouble after = flame_change_row_get_current_ms (row);
        g_autofree char *b = flame_quantity_format_compact (q, before, FALSE);
        g_autofree char *c = flame_quantity_format_compact (q, after, FALSE);

        /* Translators: under a function's name in a narrow changes panel:
         * its time (or memory, ...) before, then after */
        second = g_strdup_printf (C_("changes", "%s → %s"), b, c);
      }
      break;
    case COL_BASELINE:
      text = flame_quantity_format_compact (q, flame_change_row_get_baseline_ms (row), FALSE);
      break;
    case COL_CURRENT:
      text = flame_quantity_format_compact (q, flame_change_row_get_current_ms (row), FALSE);
      break;
    case COL_DELTA_MS:
      text = flame_quantity_format_compact (q, flame_change_row_get_delta_ms (row), TRUE);
      {
        g_autofree char *pct = delta_pct_text (row);

        /* Translators: under the change in a narrow changes panel: the
         * same in per cent (e.g. "+85.8"); put the "%%" as your language
         * writes percentages */
        second = g_strdup_printf (C_("changes", "%s %%"), pct);
      }
      break;
    case COL_DELTA_PCT:
      text = delta_pct_text (row);
      break;
    case COL_STATUS:
    default:
      g_assert_not_reached ();
    }
  gtk_label_set_text (GTK_LABEL (label), text);
  if (has_second_line (kind))
    gtk_label_set_text (GTK_LABEL (gtk_widget_get_last_child (child)), second);
}

/* What a column header means, as its tooltip */
static const char *
column_tooltip (FlameChangesPanel   *self,
                GtkColumnViewColumn *column)
{
  gboolean total = self->metric == FLAME_METRIC_TOTAL;

  if (column == self->name_column)
    return _("The function; hover over a name to see it in full with its file");
  if (column == self->before_column)
    return total ? _("In the baseline: the function and everything it calls")
                 : _("In the baseline: the function itself, without what it calls");
  if (column == self->after_column)
    return total ? _("In the current profile: the function and everything it calls")
                 : _("In the current profile: the function itself, without what it calls");
  if (column == self->delta_column)
    return _("Current minus baseline");
  if (column == self->pct_column)
    return _("The change in per cent of the baseline: +100 for a new function, "
             "-100 for a removed one");
  if (column == self->status_column)
    return _("Slower or faster beyond the noise threshold, new (only in the current "
             "profile) or removed (only in the baseline)");
  return NULL;
}

/* GtkColumnViewColumn has no tooltip of its own (GTK 4.8 to 4.24): the
 * header's title buttons get them, matched to their columns by title */
static void
apply_header_tooltips (FlameChangesPanel *self)
{
  GListModel *columns = gtk_column_view_get_columns (self->changes_view);
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (self->changes_view));

  for (GtkWidget *title = header ? gtk_widget_get_first_child (header) : NULL; title != NULL;
       title = gtk_widget_get_next_sibling (title))
    {
      GtkWidget *label = gtk_widget_get_first_child (title);

      while (label != NULL && !GTK_IS_LABEL (label))
        label = gtk_widget_get_first_child (label);
      if (label == NULL)
        continue;
      for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
        {
          g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

          const char *text = gtk_label_get_text (GTK_LABEL (label));

          if (g_strcmp0 (gtk_column_view_column_get_title (column), text) == 0)
            gtk_widget_set_tooltip_text (title, column_tooltip (self, column));
        }
    }
}

static void
apply_compact (FlameChangesPanel *self)
{
  gtk_column_view_column_set_visible (self->before_column, !self->compact);
  gtk_column_view_column_set_visible (self->after_column, !self->compact);
  gtk_column_view_column_set_visible (self->pct_column, !self->compact);
}

/* The columns' sorters sort nothing: the model sorts its flat rows
 * (flame-changes-model.c). They only tell which columns the view sorts
 * by, and which way: GTK 4.8 has no getter for that (GtkColumnViewSorter's
 * came in 4.10), but its compare() asks the sorted columns' sorters in
 * order, the first one first, until one of them is not equal, and turns
 * the answer round for a descending column. */
static int
probe_compare (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  FlameChangesPanel *self = g_object_get_data (G_OBJECT (user_data), "flame-changes-panel");
  ColumnKind kind = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (user_data), "flame-column"));

  if (self == NULL)
    return GTK_ORDERING_EQUAL;
  if ((int) kind == self->probe_answer)
    return GTK_ORDERING_SMALLER;
  if (self->probe_answer < 0 && self->n_probed < N_COLUMNS)
    self->probed[self->n_probed++] = kind;
  return GTK_ORDERING_EQUAL;
}

/* the column view's sort, as FlameChangesSort levels; returns how many */
static guint
probe_sort (FlameChangesPanel *self,
            FlameChangesSort  *levels)
{
  GtkSorter *sorter = gtk_column_view_get_sorter (self->changes_view);
  guint n;

  self->probe_answer = -1;
  self->n_probed = 0;
  /* two items (any objects): gtk_sorter_compare() says an item equals
   * itself without asking */
  gtk_sorter_compare (sorter, self, self->changes);
  n = self->n_probed;
  for (guint i = 0; i < n; i++)
    {
      levels[i].key = (FlameChangesKey) self->probed[i];
      self->probe_answer = self->probed[i];
      levels[i].descending =
        gtk_sorter_compare (sorter, self, self->changes) == GTK_ORDERING_LARGER;
    }
  self->probe_answer = -1;
  return n;
}

static void
on_sort_changed (FlameChangesPanel *self)
{
  FlameChangesSort levels[N_COLUMNS];
  guint n;

  g_assert (FLAME_IS_CHANGES_PANEL (self));

  n = probe_sort (self, levels);
  flame_changes_model_set_sort (self->changes, levels, n);
}

static GtkColumnViewColumn *
add_column (FlameChangesPanel *self,
            const char        *title,
            ColumnKind         kind)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;
  GtkSorter *sorter;

  g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), GINT_TO_POINTER (kind));
  g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), GINT_TO_POINTER (kind));
  /* the cells print in the comparison's unit */
  g_object_set_data (G_OBJECT (factory), "flame-changes-panel", self);
  column = gtk_column_view_column_new (title, factory);
  /* the factory lives as long as the column: its data tells the sorter
   * its panel and column */
  g_object_set_data (G_OBJECT (factory), "flame-column", GINT_TO_POINTER (kind));
  sorter = GTK_SORTER (gtk_custom_sorter_new (probe_compare, g_object_ref (factory),
                                              g_object_unref));
  gtk_column_view_column_set_sorter (column, sorter);
  g_object_unref (sorter);
  /* the function name takes what the numbers leave; they size to their
   * content (headers are short) and never clip */
  gtk_column_view_column_set_expand (column, kind == COL_NAME);
  gtk_column_view_column_set_resizable (column, kind == COL_NAME);
  gtk_column_view_append_column (self->changes_view, column);
  g_object_unref (column);
  return column;
}

/* the statuses the dropdown shows, 1 << FlameStatus each */
static guint
filter_mask (FlameChangesPanel *self)
{
  switch (gtk_drop_down_get_selected (self->filter_dropdown))
    {
    case FILTER_REGRESSIONS:
      return 1u << FLAME_STATUS_REGRESSION;
    case FILTER_IMPROVEMENTS:
      return 1u << FLAME_STATUS_IMPROVEMENT;
    case FILTER_NEW:
      return 1u << FLAME_STATUS_NEW;
    case FILTER_REMOVED:
      return 1u << FLAME_STATUS_REMOVED;
    case FILTER_ALL:
      return ~0u;
    case FILTER_CHANGES:
    default:
      return ~0u & ~(1u << FLAME_STATUS_UNCHANGED);
    }
}

static void
on_filter_changed_cb (FlameChangesPanel *self)
{
  g_assert (FLAME_IS_CHANGES_PANEL (self));

  if (self->changes != NULL)
    flame_changes_model_set_status_mask (self->changes, filter_mask (self));
}

static void
on_selection_changed (FlameChangesPanel *self)
{
  FlameChangeRow *row;
  guint32 frame;

  g_assert (FLAME_IS_CHANGES_PANEL (self));

  if (self->resetting)
    return;   /* on_reset() says what is selected then */
  row = gtk_single_selection_get_selected_item (self->selection);
  frame = row ? flame_change_row_get_frame (row) : FLAME_TREE_NONE;
  if (frame == self->selected)
    return;
  self->selected = frame;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_FUNCTION]);
}

/* The model replaces its rows (a new sort, filter or comparison): the
 * selection comes off first, or GtkSingleSelection would look for its
 * row among all the new ones (making an item of each), and goes back
 * where the row is now, if it still is */
static void
on_resetting (FlameChangesPanel *self)
{
  g_assert (FLAME_IS_CHANGES_PANEL (self));

  self->resetting = TRUE;
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
}

static void
on_reset (FlameChangesPanel *self)
{
  guint pos = flame_changes_model_find_frame (self->changes, self->selected);

  g_assert (FLAME_IS_CHANGES_PANEL (self));

  if (pos != G_MAXUINT)
    {
      flame_changes_model_show_at_least (self->changes, pos + 1);
      gtk_single_selection_set_selected (self->selection, pos);
    }
  self->resetting = FALSE;
  if (pos == G_MAXUINT && self->selected != FLAME_TREE_NONE)
    {
      self->selected = FLAME_TREE_NONE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_FUNCTION]);
    }
}

static void
on_pending_changed (FlameChangesPanel *self)
{
  g_assert (FLAME_IS_CHANGES_PANEL (self));

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

static void
setup_changes_view (FlameChangesPanel *self)
{
  GtkColumnViewColumn *delta;

  self->name_column = add_column (self, _("Function"), COL_NAME);
  /* Translators: column header, keep it short: the baseline's self time
   * (or bytes, ...); fill_changes() says "Total" when colouring by total */
  self->before_column = add_column (self, C_("column", "Self Before"), COL_BASELINE);
  /* Translators: column header, keep it short: the current run's self time */
  self->after_column = add_column (self, C_("column", "Self After"), COL_CURRENT);
  /* Translators: column header, keep it short: after minus before */
  delta = self->delta_column = add_column (self, C_("column", "Change"), COL_DELTA_MS);
  self->pct_column = add_column (self, _("Δ %"), COL_DELTA_PCT);
  self->status_column = add_column (self, _("Status"), COL_STATUS);
  apply_header_tooltips (self);

  self->changes = flame_changes_model_new ();
  flame_changes_model_set_status_mask (self->changes, filter_mask (self));
  g_signal_connect_swapped (self->changes, "resetting", G_CALLBACK (on_resetting), self);
  g_signal_connect_swapped (self->changes, "reset", G_CALLBACK (on_reset), self);
  g_signal_connect_swapped (self->changes, "notify::pending", G_CALLBACK (on_pending_changed),
                            self);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->changes)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_column_view_set_model (self->changes_view, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect_swapped (gtk_column_view_get_sorter (self->changes_view), "changed",
                            G_CALLBACK (on_sort_changed), self);
  gtk_column_view_sort_by_column (self->changes_view, delta, GTK_SORT_DESCENDING);
  g_signal_connect_swapped (self->selection, "notify::selected",
                            G_CALLBACK (on_selection_changed), self);
}

static void
fill_changes (FlameChangesPanel *self)
{
  FlameReport *report = self->comparison ? flame_comparison_get_report (self->comparison) : NULL;
  FlameMetric metric = FLAME_METRIC_SELF;

  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  if (report != NULL)
    {
      FlameDiff *diff = flame_comparison_get_diff (self->comparison);

      metric = flame_diff_get_options (diff)->metric;

      self->metric = metric;
      /* the rows hold the metric the graph is coloured by: say which */
      gtk_column_view_column_set_title (self->before_column, metric == FLAME_METRIC_TOTAL
                                                               ? C_("column", "Total Before")
                                                               : C_("column", "Self Before"));
      gtk_column_view_column_set_title (self->after_column, metric == FLAME_METRIC_TOTAL
                                        ? C_("column", "Total After") : C_("column", "Self After"));
      self->quantity = flame_diff_get_quantity (diff);
      apply_header_tooltips (self);
    }
  /* the rows come now for a small report, from a worker for a large one */
  flame_changes_model_set_comparison (self->changes, report != NULL ? self->comparison : NULL,
                                      metric);
}

/* ------------------------------------------------------------------ */
/* Public API */

/**
 * flame_changes_panel_set_comparison:
 * @comparison: (nullable): a loaded comparison; its report fills the
 *   table (none for a single profile)
 *
 * Another comparison clears the selection and the rows; the same one
 * again keeps both.
 */
void
flame_changes_panel_set_comparison (FlameChangesPanel *self,
                                    FlameComparison   *comparison)
{
  g_return_if_fail (FLAME_IS_CHANGES_PANEL (self));
  g_return_if_fail (comparison == NULL || FLAME_IS_COMPARISON (comparison));

  if (!g_set_object (&self->comparison, comparison))
    return;
  fill_changes (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPARISON]);
}

/**
 * flame_changes_panel_get_selected_function:
 *
 * Returns: the frame of the function selected in the table, or
 *   FLAME_TREE_NONE
 */
guint32
flame_changes_panel_get_selected_function (FlameChangesPanel *self)
{
  g_return_val_if_fail (FLAME_IS_CHANGES_PANEL (self), FLAME_TREE_NONE);
  return self->selected;
}

/* the rows are still being sorted in a worker, or handed to the table
 * a few at a time */
gboolean
_flame_changes_panel_get_pending (FlameChangesPanel *self)
{
  g_return_val_if_fail (FLAME_IS_CHANGES_PANEL (self), FALSE);
  return flame_changes_model_get_pending (self->changes);
}

gboolean
flame_changes_panel_get_compact (FlameChangesPanel *self)
{
  g_return_val_if_fail (FLAME_IS_CHANGES_PANEL (self), FALSE);
  return self->compact;
}

/**
 * flame_changes_panel_set_compact:
 *
 * Three columns for a narrow panel: the function with "before → after"
 * under its name, the change with its per cent under it, and the status
 * (the before, after and per-cent columns hidden).
 */
void
flame_changes_panel_set_compact (FlameChangesPanel *self,
                                 gboolean           compact)
{
  g_return_if_fail (FLAME_IS_CHANGES_PANEL (self));

  compact = !!compact;
  if (self->compact == compact)
    return;
  self->compact = compact;
  apply_compact (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPACT]);
}

/* ------------------------------------------------------------------ */
/* GObject */

static void
flame_changes_panel_dispose (GObject *object)
{
  FlameChangesPanel *self = FLAME_CHANGES_PANEL (object);
  GtkWidget *child;

  /* The models live until the column view lets them go in
   * gtk_widget_dispose_template() below, and change as it drops its
   * columns (and so its sort): the selection moves. Nothing of theirs
   * may call back into a panel half disposed. */
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  if (self->changes != NULL)
    g_signal_handlers_disconnect_by_data (self->changes, self);
  if (self->changes_view != NULL)
    g_signal_handlers_disconnect_by_data (gtk_column_view_get_sorter (self->changes_view), self);

  gtk_widget_dispose_template (GTK_WIDGET (self), FLAME_TYPE_CHANGES_PANEL);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->comparison);
  g_clear_object (&self->changes);
  g_clear_object (&self->selection);
  G_OBJECT_CLASS (flame_changes_panel_parent_class)->dispose (object);
}

static void
flame_changes_panel_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  FlameChangesPanel *self = FLAME_CHANGES_PANEL (object);

  switch (prop_id)
    {
    case PROP_COMPARISON:
      g_value_set_object (value, self->comparison);
      break;
    case PROP_SELECTED_FUNCTION:
      g_value_set_uint (value, self->selected);
      break;
    case PROP_COMPACT:
      g_value_set_boolean (value, self->compact);
      break;
    case PROP_PENDING:
      g_value_set_boolean (value, flame_changes_model_get_pending (self->changes));
      break;
    case PROP_PILL_WIDTH:
      g_value_set_int (value, pill_width (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_changes_panel_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  FlameChangesPanel *self = FLAME_CHANGES_PANEL (object);

  switch (prop_id)
    {
    case PROP_COMPARISON:
      flame_changes_panel_set_comparison (self, g_value_get_object (value));
      break;
    case PROP_COMPACT:
      flame_changes_panel_set_compact (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_changes_panel_class_init (FlameChangesPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = flame_changes_panel_dispose;
  object_class->get_property = flame_changes_panel_get_property;
  object_class->set_property = flame_changes_panel_set_property;

  properties[PROP_COMPARISON] =
    g_param_spec_object ("comparison", NULL, NULL, FLAME_TYPE_COMPARISON,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* the frame of the selected row's function (FLAME_TREE_NONE: none) */
  properties[PROP_SELECTED_FUNCTION] =
    g_param_spec_uint ("selected-function", NULL, NULL, 0, G_MAXUINT32, FLAME_TREE_NONE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* three columns for a narrow window (flame_changes_panel_set_compact) */
  properties[PROP_COMPACT] =
    g_param_spec_boolean ("compact", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* rows still being sorted in a worker or handed to the table */
  properties[PROP_PENDING] =
    g_param_spec_boolean ("pending", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* the status cells' width: the widest pill */
  properties[PROP_PILL_WIDTH] =
    g_param_spec_int ("pill-width", NULL, NULL, 0, G_MAXINT, 0,
                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "changespanel");
  gtk_widget_class_set_template_from_resource (
    widget_class, "/io/github/flamediff/Flamediff/ui/flame-changes-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, FlameChangesPanel, filter_dropdown);
  gtk_widget_class_bind_template_child (widget_class, FlameChangesPanel, changes_view);
  gtk_widget_class_bind_template_callback (widget_class, on_filter_changed_cb);
}

static void
flame_changes_panel_init (FlameChangesPanel *self)
{
  self->selected = FLAME_TREE_NONE;
  self->probe_answer = -1;
  g_signal_connect_object (gtk_settings_get_default (), "notify::gtk-font-name",
                           G_CALLBACK (on_pill_style_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gtk_settings_get_default (), "notify::gtk-xft-dpi",
                           G_CALLBACK (on_pill_style_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::high-contrast",
                           G_CALLBACK (on_pill_style_changed), self, G_CONNECT_SWAPPED);
  gtk_widget_init_template (GTK_WIDGET (self));
  setup_changes_view (self);
}
