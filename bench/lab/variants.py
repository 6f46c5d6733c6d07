"""Lab variants: the trivial one-slider page plus one Streamlit element kind each, to price that kind.

Run by run_lab.py (slider moves) and cold.py (cold start) with EYEDP_LAB_VARIANT naming one of VARIANTS."""
import contextlib
import io
import json
import os

import numpy as np
import streamlit as st

X = np.linspace(0.01, 0.99, 99)


def _line_figure(y: np.ndarray, *, fill: bool = False, stripped: bool = False):
    """One or two Scatter traces: the shape of a typical EyeDP line chart."""
    import plotly.graph_objects as go

    fig = go.Figure()
    if not stripped:
        fig.add_scatter(x=X, y=X, line=dict(dash="dot"))
    fig.add_scatter(x=X, y=y, fill="tonexty" if fill else None, mode="lines")
    if stripped:
        fig.update_layout(margin=dict(l=40, r=10, t=10, b=30), showlegend=False, hovermode=False)
    fig.update_layout(height=340)
    return fig


def _jpeg(v: int) -> bytes:
    from PIL import Image

    b = io.BytesIO()
    Image.fromarray((np.random.default_rng(v).random((300, 400, 3)) * 255).astype("uint8")).save(b, "JPEG")
    return b.getvalue()


def _share(v: int, deferred: bool) -> None:
    """A share box like ui.share.page_tools: settings download and upload, script download."""
    st.divider()
    st.subheader("Share and reproduce")
    with st.container(border=True):
        a, b = st.columns(2)
        data = (lambda: json.dumps({"v": v})) if deferred else json.dumps({"v": v}).encode()
        a.download_button("Download settings (JSON)", data, "s.json", "application/json", key="dl1")
        with b:
            st.file_uploader("Load settings (JSON)", type=["json"], key="up")
    with st.container(border=True):
        st.download_button("Python script", (lambda: f"print({v})") if deferred else f"print({v})".encode(), "s.py",
                           key="dl2")


def _block(kind: str) -> str:
    """A block shaped like Heatmaps' numbers under the overlays (~4.5 kB: HTML number cards, three headed
    paragraphs with bold), as markdown with raw HTML ("md") or as the same content in HTML ("html")."""
    cards = "".join(f'<div class="n" title="What {i} measures (1 = identical)."><div class="l">Metric {i}</div>'
                    f'<div class="v">0.{i}55</div></div>' for i in range(6))
    text = ("Every cell of the average map gets Gaussian noise with standard deviation σ = 0.209 (analytic "
            "calibration for Δ₂ = 0.194, ε = 3, δ = 6.3e-04). One observer can move the average map by at most "
            "Δ₂ = 0.194 (L2) or Δ₁ = 1.5 (L1), because each map is capped at m = 1 fixations per cell. ") * 2
    parts = [f"<div class='cards'>{cards}</div>"]
    for head in ("Noise scale", "Privacy accounting", "Map and noise settings"):
        parts += [f"### {head}" if kind == "md" else f"<h3>{head}</h3>",
                  f"**{text[:80]}** {text}" if kind == "md" else f"<p><strong>{text[:80]}</strong> {text}</p>",
                  f"<div class='cards'>{cards}</div>"]
    return "\n\n".join(parts)


BODIES = {
    "frag": lambda v: None,
    "frag_qp": lambda v: st.query_params.update(v=str(v)),
    "plot": lambda v: st.plotly_chart(_line_figure(X ** (v / 50), fill=True), theme=None),
    "plot_static": lambda v: st.plotly_chart(_line_figure(X ** (v / 50), fill=True), theme=None,
                                             config={"staticPlot": True}),
    "plot_same": lambda v: st.plotly_chart(_line_figure(X ** 2, fill=True), theme=None),
    "plot_stripped": lambda v: st.plotly_chart(_line_figure(X ** (v / 50), stripped=True), theme=None, key="fixed",
                                               config={"displayModeBar": False, "staticPlot": True}),
    "two_plots": lambda v: [st.plotly_chart(_line_figure(X ** (v / 50 + j)), theme=None, key=f"p{j}") for j in (0, 1)],
    "image": lambda v: st.image(st.cache_data(_jpeg)(v)),
    "many": lambda v: [st.markdown(f"static line {i}") for i in range(90)],
    "dataframe": lambda v: st.dataframe(np.random.default_rng(v).random((6, 5))),
    "dataframe_same": lambda v: st.dataframe(np.random.default_rng(1).random((6, 5))),
    "table": lambda v: st.table(np.random.default_rng(v).random((6, 5)).round(3)),
    "mdtable": lambda v: st.markdown("| a | b | c | d | e |\n|---|---|---|---|---|\n" + "\n".join(
        "| " + " | ".join(f"{x:.3f}" for x in r) + " |" for r in np.random.default_rng(v).random((6, 5)))),
    "metrics": lambda v: [c.metric(f"m{i}", f"{v * i:.2f}", delta=f"{v - 50}") for i, c in enumerate(st.columns(4))],
    "md10": lambda v: [st.markdown(f"**Bold {v}** text with a [table]\n\n| a | b |\n|--:|--:|\n| {i} | {v} |")
                       for i in range(10)],
    "mdhtml10": lambda v: [st.markdown(f"<div class='x'><b>Bold {v}</b> text</div><table><tr><td>{i}</td>"
                                       f"<td>{v}</td></tr></table>", unsafe_allow_html=True) for i in range(10)],
    "html10": lambda v: [st.html(f"<div class='x'><b>Bold {v}</b> text</div><table><tr><td>{i}</td>"
                                 f"<td>{v}</td></tr></table>") for i in range(10)],
    "text10": lambda v: [st.text(f"Bold {v} text {i}") for i in range(10)],
    "outside6": lambda v: [OUT[i].markdown(f"out {v}") for i in range(6)],
    "inside6": lambda v: [st.markdown(f"out {v}") for i in range(6)],
    "widgets4": lambda v: [st.selectbox("s", ["a", "b"], key="w1"), st.number_input("n", 0, 9, 1, key="w2"),
                           st.checkbox("c", key="w3"), st.radio("r", ["a", "b"], key="w4", horizontal=True)],
    "sliders3": lambda v: [st.slider(f"s{i}", 0, 100, 50, key=f"s{i}") for i in range(3)],
    "md4": lambda v: [st.markdown(f"**line** {i} {v}") for i in range(4)],
    "bigpage": lambda v: None,
    "bigside": lambda v: None,
    "bigtext": lambda v: None,
    "bightml": lambda v: None,
    "bigone": lambda v: None,
    "bigone_container": lambda v: None,
    "bigone_expander": lambda v: None,
    "outwidgets": lambda v: None,
    "outexpwidgets": lambda v: None,
    "outplot": lambda v: None,
    "nest4": lambda v: None,
    "tsshape": lambda v: None,
    "cards": lambda v: None,
    "cards_qp": lambda v: st.query_params.update(v=str(v)),
    "links_qp": lambda v: st.query_params.update(v=str(v)),
    "boxes_qp": lambda v: st.query_params.update(v=str(v)),
    "tsshape_seg": lambda v: None,
    "share": lambda v: _share(v, deferred=False),
    "share_deferred": lambda v: _share(v, deferred=True),
    # A Heatmaps-like numbers block that changes on every move: markdown with raw HTML, or the same in st.html.
    "hmmd": lambda v: st.markdown(_block("md").replace("0.055", f"0.{v}"), unsafe_allow_html=True),
    "hmhtml": lambda v: st.html(_block("html").replace("0.055", f"0.{v}")),
    "hmmd_out": lambda v: None,
    "hmhtml_out": lambda v: None,
    "bigpage_popover": lambda v: None,
    "bigpage_expander": lambda v: None,
    "bigpage_tab": lambda v: None,
}

variant = os.environ.get("EYEDP_LAB_VARIANT", "frag")
st.title("Trivial")
if variant == "select":  # the slider kind itself (EyeDP's log sliders are select-sliders)
    st.write(st.select_slider("value", options=list(range(101)), value=50))
elif variant == "uploader":  # cold-start price of one file uploader
    st.write(st.slider("value", 0, 100, 50))
    st.file_uploader("Load settings (JSON)", type=["json"], key="up")
else:
    OUT = [st.container() for _ in range(6)] if variant == "outside6" else []
    if variant.startswith("bigpage"):  # shown, or hidden: are hidden elements re-rendered on a move?
        box = {"bigpage_popover": lambda: st.popover("closed"), "bigpage_expander": lambda: st.expander("closed"),
               "bigpage_tab": lambda: st.tabs(["shown", "hidden"])[1]}.get(variant, contextlib.nullcontext)()
        with box:
            for i in range(100):
                st.markdown(f"static **line** {i}")
    if variant == "bigtext":
        for i in range(100):
            st.text(f"static line {i}")
    if variant == "bightml":
        for i in range(100):
            st.html(f"<b>static</b> line {i}")
    if variant == "bigone":
        st.markdown("\n\n".join(f"static **line** {i}" for i in range(100)))
    if variant == "bigone_container":
        with st.container():
            st.markdown("\n\n".join(f"static **line** {i}" for i in range(100)))
    if variant == "bigone_expander":
        with st.expander("closed"):
            st.markdown("\n\n".join(f"static **line** {i}" for i in range(100)))
    if variant == "outwidgets":  # widgets drawn outside the fragment: re-rendered by each move?
        for i in range(8):
            st.selectbox(f"sel {i}", ["a", "b", "c"], key=f"o{i}")
            st.checkbox(f"chk {i}", key=f"c{i}")
    if variant == "outexpwidgets":
        with st.expander("closed"):
            for i in range(8):
                st.selectbox(f"sel {i}", ["a", "b", "c"], key=f"o{i}")
                st.checkbox(f"chk {i}", key=f"c{i}")
    if variant == "outplot":
        for j in range(3):
            st.plotly_chart(_line_figure(X ** (j + 1), fill=True), theme=None, key=f"op{j}")
    if variant.startswith("cards"):  # Home's six cards: a bordered box with a page link and a caption each
        for start in (0, 3):
            for i, col in enumerate(st.columns(3)):
                with col.container(border=True):
                    st.page_link("https://example.com", label=f"**View {start + i}**", icon=":material/arrow_forward:")
                    st.caption("Where people looked, with noise added per observer so that no one's gaze can be told.")
    if variant == "links_qp":
        for i in range(6):
            st.page_link("https://example.com", label=f"**View {i}**", icon=":material/arrow_forward:")
    if variant == "boxes_qp":
        for start in (0, 3):
            for i, col in enumerate(st.columns(3)):
                with col.container(border=True):
                    st.caption("Where people looked, with noise added per observer so that no one's gaze can be told.")
    if variant.startswith("tsshape"):  # the widget kinds around the Time-series sliders, outside the fragment
        cols = st.columns(3)
        for i, c in enumerate(cols):
            c.selectbox(f"pick {i}", ["a", "b", "c"], key=f"p{i}")
        with st.container(border=True):
            seg = variant == "tsshape_seg"
            for i in range(4):
                if seg:
                    st.segmented_control(f"seg {i}", ["one", "two", "three"], default="one", key=f"g{i}")
            for i in range(3):
                st.radio(f"radio {i}", ["x", "y"], horizontal=True, key=f"r{i}")
            st.number_input("n", 0, 10, 1, key="n1")
            st.number_input("m", 0, 10, 1, key="n2")
            for i in range(3):
                st.selectbox(f"sel {i}", ["a", "b"], key=f"s{i}")
    if variant == "hmmd_out":  # the same block outside the fragment: parsed again on a move?
        st.markdown(_block("md"), unsafe_allow_html=True)
    if variant == "hmhtml_out":
        st.html(_block("html"))
    if variant == "bigside":
        for i in range(40):
            st.sidebar.markdown(f"static **line** {i}")

    @st.fragment
    def body() -> None:
        v = st.slider("value", 0, 100, 50)
        BODIES[variant](v)
        st.write(v)

    if variant == "nest4":  # the slider's fragment nested three deep, as the Heatmaps parts are
        @st.fragment
        def n1():
            st.markdown("outer 1")

            @st.fragment
            def n2():
                st.markdown("outer 2")

                @st.fragment
                def n3():
                    st.markdown("outer 3")
                    body()
                n3()
            n2()
        n1()
    else:
        body()
