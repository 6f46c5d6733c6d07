import numpy as np, plotly.graph_objects as go
import streamlit as st
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    fig = go.Figure(go.Heatmap(z=np.random.default_rng(v).random((60, 80))))
    fig.update_layout(height=340)
    st.plotly_chart(fig, theme=None, config={"staticPlot": True, "responsive": False})
    st.write(v)
f()
